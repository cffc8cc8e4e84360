//! Where each file of a translation unit lies among token positions.
//!
//! Tokens of every file of a unit (the main file and the headers it
//! includes) share one space of positions, so that the preprocessor can
//! splice a header's tokens into the stream and the parser, which knows
//! only positions, reads them like any other. A position becomes a file and
//! an offset in it only when a [`Span`] is made, so every diagnostic and
//! every node of the tree points into the file the text came from.

use tessera_diagnostics::{FileId, Span};

/// One file of a unit: its tokens' positions are `base + offset in text`.
#[derive(Clone, Copy, Debug)]
pub struct Segment<'s> {
    /// Position of the file's first byte.
    pub base: u32,
    /// The file.
    pub file: FileId,
    /// Its text.
    pub text: &'s str,
}

impl Segment<'_> {
    /// One past the position of the file's last byte.
    pub fn end(&self) -> u32 {
        self.base.saturating_add(self.text.len() as u32)
    }
}

/// The files of a unit by position (the main file first, at position 0).
#[derive(Clone, Copy, Debug)]
pub struct Files<'a, 's> {
    segments: &'a [Segment<'s>],
}

impl<'a, 's> Files<'a, 's> {
    /// The files `segments` describes, in ascending order of `base`, with
    /// gaps of at least one position between them (so that the end of one
    /// file is not the start of the next).
    pub fn new(segments: &'a [Segment<'s>]) -> Self {
        Files { segments }
    }

    /// The segment holding position `pos` (the last one starting at or
    /// before it; the first if there is none).
    pub fn segment(self, pos: u32) -> Segment<'s> {
        let i = self.segments.partition_point(|s| s.base <= pos);
        self.segments
            .get(i.saturating_sub(1))
            .copied()
            .unwrap_or(Segment {
                base: 0,
                file: FileId::default(),
                text: "",
            })
    }

    /// The span from `start` to `end`, in the file holding `start` (an end
    /// past that file is cut at its end).
    ///
    /// The ends are moved out to character boundaries: a position inside a
    /// character (the stand-in of a byte that is not UTF-8 is three bytes
    /// of text for one byte of input) never reaches a [`Span`].
    pub fn span(self, start: u32, end: u32) -> Span {
        let seg = self.segment(start);
        let len = seg.text.len() as u32;
        let local = |p: u32| p.saturating_sub(seg.base).min(len);
        let mut from = local(start);
        let mut to = local(end.max(start));
        while from > 0 && !seg.text.is_char_boundary(from as usize) {
            from -= 1;
        }
        while to < len && !seg.text.is_char_boundary(to as usize) {
            to += 1;
        }
        Span {
            file: seg.file,
            start: from,
            end: to,
        }
    }

    /// The source text between two positions of one file ("" if they are not).
    pub fn text(self, start: u32, end: u32) -> &'s str {
        let seg = self.segment(start);
        let (a, b) = (start.saturating_sub(seg.base), end.saturating_sub(seg.base));
        seg.text.get(a as usize..b as usize).unwrap_or("")
    }

    /// One past the last position of the file holding `pos`.
    pub fn end_of(self, pos: u32) -> u32 {
        self.segment(pos).end()
    }

    /// The file holding position `pos`.
    pub fn file_at(self, pos: u32) -> FileId {
        self.segment(pos).file
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_map_to_their_files() {
        let segs = [
            Segment {
                base: 0,
                file: FileId(0),
                text: "main",
            },
            Segment {
                base: 5,
                file: FileId(3),
                text: "header",
            },
        ];
        let files = Files::new(&segs);
        assert_eq!(files.span(1, 3), Span::new(FileId(0), 1..3));
        assert_eq!(files.span(4, 4), Span::new(FileId(0), 4..4));
        assert_eq!(files.span(6, 8), Span::new(FileId(3), 1..3));
        // An end past the file is cut at its end.
        assert_eq!(files.span(2, 9), Span::new(FileId(0), 2..4));
        assert_eq!(files.text(5, 8), "hea");
        assert_eq!(files.end_of(7), 11);
        assert_eq!(files.file_at(11), FileId(3));
    }
}
