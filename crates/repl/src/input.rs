//! When an input is whole: the rule the line editor's validator and the
//! script reader share, so that a session behaves the same typed or piped.

/// True when `text` is a whole input: no bracket is left open, no block
/// comment is unfinished and the last line does not end in `\` (a directive
/// continued on the next line). A meta-command (`:type ...`) is always whole.
///
/// Brackets inside comments and string or character literals do not count. A
/// closer without its opener makes the input whole at once: more lines cannot
/// mend it, and the parser explains the mistake.
pub fn is_complete(text: &str) -> bool {
    if meta_command(text).is_some() {
        return true;
    }
    let mut depth: usize = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            },
            '/' if chars.peek() == Some(&'/') => {
                // A line comment runs to the end of the line.
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut closed = false;
                let mut star = false;
                for c in chars.by_ref() {
                    if star && c == '/' {
                        closed = true;
                        break;
                    }
                    star = c == '*';
                }
                if !closed {
                    return false;
                }
            }
            '"' | '\'' => {
                // A literal ends at its closing quote or, unterminated, at the
                // end of the line (the lexer reports it).
                while let Some(c2) = chars.next() {
                    match c2 {
                        '\\' => {
                            chars.next();
                        }
                        '\n' => break,
                        _ if c2 == c => break,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    depth == 0
        && !text
            .trim_end_matches([' ', '\t', '\r', '\n'])
            .ends_with('\\')
}

/// The command word and its argument when `text` is a meta-command: a `:`
/// followed by a letter at the start (`::x` is a qualified name, not one).
pub fn meta_command(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix(':')?;
    if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    let (word, arg) = rest.split_at(end);
    Some((word, arg.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_brackets_continue() {
        assert!(is_complete("int x = 5;"));
        assert!(is_complete("x + 1"));
        assert!(!is_complete("parallel_for_each(e,"));
        assert!(!is_complete("for (int i = 0; i < 4; i++) {"));
        assert!(!is_complete("int a[] = {1, 2,\n 3"));
        assert!(is_complete("int a[] = {1, 2,\n 3};"));
        assert!(is_complete("f(x))"), "a stray closer ends the input");
    }

    #[test]
    fn comments_and_literals_hide_brackets() {
        assert!(is_complete("x = 1; // (not open"));
        assert!(is_complete("std::cout << \"{\";"));
        assert!(is_complete("char c = '(';"));
        assert!(is_complete("std::cout << \"\\\"(\";"));
        assert!(!is_complete("x = 1; /* still"));
        assert!(is_complete("x = 1; /* done ( */"));
    }

    #[test]
    fn a_backslash_continues_a_directive() {
        assert!(!is_complete("#define SQ(x) \\"));
        assert!(is_complete("#define SQ(x) \\\n ((x) * (x))"));
    }

    #[test]
    fn meta_commands_are_whole() {
        assert!(is_complete(":type f("));
        assert_eq!(
            meta_command("  :load samples/x.amp "),
            Some(("load", "samples/x.amp"))
        );
        assert_eq!(meta_command(":quit"), Some(("quit", "")));
        assert_eq!(meta_command("::x"), None);
        assert_eq!(meta_command("x ? a : b"), None);
    }
}
