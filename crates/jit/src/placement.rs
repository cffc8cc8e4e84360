//! Where a function's machine code is placed: its innermost loops' heads
//! early in a cache line.
//!
//! Cranelift 0.135 aligns no loop heads on x86-64, so the same loop ran
//! up to 1.7 times slower when its first instruction fell late in a
//! 64-byte line (measured with one copy of a lane loop placed at every
//! offset of a line; the processor decodes and caches instructions by
//! line). A function is therefore placed on a line, with a few bytes of
//! no-op instructions before its entry, chosen so that its deepest
//! innermost loops start near a line's start. Those no-ops run once per
//! call (a tile, a chunk of work-items, a host loop), the loops they
//! place many times.
//!
//! Where a loop's code lies is learnt through source locations: before
//! the compile, the instructions of each innermost loop's blocks that
//! stay where they are written (branches, stores, calls, checks, loads
//! that may not move; rare blocks, laid out after the function, left
//! out) are tagged with their loop. The machine code's source-location
//! ranges then give the first and last bytes of those instructions, and
//! the block starts (Cranelift's `machine_code_cfg_info`) the first byte
//! of the loop's first block. (Arithmetic is left untagged: Cranelift
//! places it where it is used or hoists it out of the loop. Cranelift's
//! own block edges cannot serve: with rare blocks laid out last, it pairs
//! each block's start with another block's successors.)

use cranelift_codegen::CompiledCode;
use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{Function, SourceLoc};
use cranelift_codegen::loop_analysis::LoopAnalysis;
use std::collections::HashSet;

/// The cache line the loops are placed against, in bytes.
pub(crate) const LINE: u32 = 64;

/// A loop's machine code: from its head's first byte to its body's end,
/// and how many loops hold it (itself included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoopSpan {
    /// The first byte of the loop's first block.
    pub start: u32,
    /// One past the last byte of its last tagged instruction.
    pub end: u32,
    /// How many loops hold it, itself included.
    pub depth: u32,
}

/// Tags the instructions of `func`'s innermost loops that stay in their
/// blocks with source locations naming their loops (see the module's
/// notes) and returns each tagged loop's depth, the `n`-th for tag
/// `n + 1`.
pub(crate) fn tag_innermost_loops(func: &mut Function) -> Vec<u32> {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let mut loops = LoopAnalysis::new();
    loops.compute(func, &cfg, &domtree);
    let parents: HashSet<_> = loops.loops().filter_map(|l| loops.loop_parent(l)).collect();
    let innermost: Vec<_> = loops.loops().filter(|l| !parents.contains(l)).collect();
    let depths = innermost
        .iter()
        .map(|&l| {
            let level = loops.loop_level(loops.loop_header(l)).level();
            u32::try_from(level).unwrap_or(u32::MAX)
        })
        .collect();
    let blocks: Vec<_> = func.layout.blocks().collect();
    for block in blocks {
        if func.layout.is_cold(block) {
            continue;
        }
        let Some(l) = loops.innermost_loop(block) else {
            continue;
        };
        let Some(n) = innermost.iter().position(|&i| i == l) else {
            continue;
        };
        let tag = SourceLoc::new(n as u32 + 1);
        let insts: Vec<_> = func.layout.block_insts(block).collect();
        for inst in insts {
            let data = &func.dfg.insts[inst];
            let op = data.opcode();
            let stays = op.is_terminator()
                || op.is_branch()
                || op.is_call()
                || op.can_store()
                || op.can_trap()
                || op.other_side_effects()
                || (op.can_load() && !data.memflags_data(&func.dfg).is_some_and(|f| f.can_move()));
            if stays {
                func.set_srcloc(inst, tag);
            }
        }
    }
    depths
}

/// The spans of the loops [`tag_innermost_loops`] tagged, from the
/// compiled code's source-location ranges `(start, end, tag)` and block
/// starts: from the start of the block holding a loop's first tagged
/// instruction to the end of its last. A loop that left no tagged code
/// is left out.
pub(crate) fn loop_spans(
    ranges: &[(u32, u32, u32)],
    starts: &[u32],
    depths: &[u32],
) -> Vec<LoopSpan> {
    let mut spans = Vec::new();
    for (n, &depth) in depths.iter().enumerate() {
        let tag = n as u32 + 1;
        let mine = ranges.iter().filter(|r| r.2 == tag);
        let (Some(first), Some(end)) = (mine.clone().map(|r| r.0).min(), mine.map(|r| r.1).max())
        else {
            continue;
        };
        let Some(start) = starts.iter().copied().filter(|&s| s <= first).max() else {
            continue;
        };
        spans.push(LoopSpan { start, end, depth });
    }
    spans
}

/// [`loop_spans`] of a compiled function whose loops
/// [`tag_innermost_loops`] tagged, their depths `depths`.
pub(crate) fn compiled_loop_spans(compiled: &CompiledCode, depths: &[u32]) -> Vec<LoopSpan> {
    let ranges: Vec<(u32, u32, u32)> = compiled
        .buffer
        .get_srclocs_sorted()
        .iter()
        .filter(|r| !r.loc.is_default())
        .map(|r| (r.start, r.end, r.loc.bits()))
        .collect();
    loop_spans(&ranges, &compiled.bb_starts, depths)
}

/// How many bytes of no-ops go before a function's code, when it starts
/// on a line, for its loops `spans` to start early in their lines: a
/// multiple of `step` (the code's own alignment, which its constants
/// rely on) below [`LINE`]. Each loop is weighed by its depth (16 to its
/// power: the deeper, the more often it runs); the padding chosen keeps
/// the weighed count of lines the loops span beyond the fewest they could
/// span lowest, then the weighed offsets of their first bytes in their
/// lines.
pub(crate) fn loop_padding(spans: &[LoopSpan], step: u32) -> u32 {
    let step = step.max(1);
    if step >= LINE || spans.is_empty() {
        return 0;
    }
    let cost = |pad: u32| {
        let mut lines = 0u64;
        let mut offsets = 0u64;
        for span in spans {
            let weight = 16u64.pow(span.depth.min(8));
            let (from, to) = (span.start + pad, span.end.max(span.start + 1) + pad);
            let spanned = (to - 1) / LINE - from / LINE + 1;
            let fewest = (to - from).div_ceil(LINE);
            lines += weight * u64::from(spanned - fewest);
            offsets += weight * u64::from(from % LINE);
        }
        (lines, offsets)
    };
    (0..LINE)
        .step_by(step as usize)
        .min_by_key(|&pad| cost(pad))
        .unwrap_or(0)
}

/// `len` bytes of x86-64 no-op instructions, in the longest forms the
/// processor manuals recommend (up to nine bytes each), so that running
/// through them takes few instructions.
pub(crate) fn x86_nops(len: usize) -> Vec<u8> {
    const FORMS: [&[u8]; 9] = [
        &[0x90],
        &[0x66, 0x90],
        &[0x0f, 0x1f, 0x00],
        &[0x0f, 0x1f, 0x40, 0x00],
        &[0x0f, 0x1f, 0x44, 0x00, 0x00],
        &[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00],
        &[0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00],
        &[0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
        &[0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    ];
    let mut out = Vec::with_capacity(len);
    let mut left = len;
    while left > 0 {
        let n = left.min(FORMS.len());
        out.extend_from_slice(FORMS[n - 1]);
        left -= n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: u32, end: u32, depth: u32) -> LoopSpan {
        LoopSpan { start, end, depth }
    }

    #[test]
    fn an_inner_loop_late_in_a_line_is_moved_to_the_start_of_the_next() {
        // The barrier loop's kernel: a loop at 0x56 and one at 0xdb (depth
        // 1), and one at 0x156..0x1c7 inside the loop of barriers (depth
        // 2), 22 bytes into its line.
        let spans = [
            span(0x56, 0xbb, 1),
            span(0xdb, 0x11d, 1),
            span(0x156, 0x1c7, 2),
        ];
        let pad = loop_padding(&spans, 16);
        assert_eq!(pad, 48);
        assert_eq!((0x156 + pad) % LINE, 6);
    }

    #[test]
    fn a_deeper_loop_outweighs_a_shallower_one() {
        // Only one of the two can start within its line's first bytes.
        let spans = [span(0x10, 0x40, 1), span(0x128, 0x160, 2)];
        let pad = loop_padding(&spans, 16);
        assert_eq!((0x128 + pad) % LINE, 0x28 % 16);
        let shallow_first = [span(0x10, 0x40, 2), span(0x128, 0x160, 1)];
        assert_eq!((0x10 + loop_padding(&shallow_first, 16)) % LINE, 0);
    }

    #[test]
    fn code_without_loops_or_with_wide_alignment_is_not_moved() {
        assert_eq!(loop_padding(&[], 16), 0);
        assert_eq!(loop_padding(&[span(0x30, 0x50, 1)], 64), 0);
    }

    #[test]
    fn a_loop_starts_at_the_block_of_its_first_tagged_instruction() {
        // Blocks at 0, 0x20, 0x38, 0x60; the loop's (tag 1) instructions
        // that stay lie at 0x3c..0x44 and 0x50..0x5a.
        let ranges = [(0x10, 0x14, 2), (0x3c, 0x44, 1), (0x50, 0x5a, 1)];
        let spans = loop_spans(&ranges, &[0, 0x20, 0x38, 0x60], &[2, 1]);
        assert_eq!(spans, vec![span(0x38, 0x5a, 2), span(0, 0x14, 1)]);
        // A loop that left no tagged code is none.
        assert_eq!(loop_spans(&[(0x44, 0x5a, 2)], &[0, 0x38], &[1]), vec![]);
    }

    /// Compiles, through the module's own path, a function with `filler`
    /// stores before a loop nest whose inner loop stores a counter; gives
    /// its placed bytes and the inner loop's span in the unplaced code.
    fn compile_nest(filler: usize) -> (Vec<u8>, usize, Vec<LoopSpan>) {
        use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, condcodes::IntCC, types};
        use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
        use cranelift_module::{Linkage, Module};
        let Ok((mut module, _, isa)) = crate::new_module() else {
            panic!("no native code module on this machine");
        };
        let mut ctx = module.make_context();
        let sig = &mut ctx.func.signature;
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let [entry, outer, inner_pre, inner, latch, exit] = [(); 6].map(|_| b.create_block());
        b.append_block_params_for_function_params(entry);
        b.append_block_param(outer, types::I64);
        b.append_block_param(inner, types::I64);
        b.switch_to_block(entry);
        let (n, p) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        for k in 0..filler {
            b.ins()
                .store(MemFlagsData::new().with_notrap(), n, p, 8 * k as i32);
        }
        let zero = b.ins().iconst(types::I64, 0);
        b.ins().jump(outer, &[zero.into()]);
        b.switch_to_block(outer);
        let i = b.block_params(outer)[0];
        let more = b.ins().icmp(IntCC::SignedLessThan, i, n);
        b.ins().brif(more, inner_pre, &[], exit, &[]);
        b.switch_to_block(inner_pre);
        b.ins().jump(inner, &[zero.into()]);
        b.switch_to_block(inner);
        let j = b.block_params(inner)[0];
        b.ins().store(MemFlagsData::new().with_notrap(), j, p, 0);
        let j1 = b.ins().iadd_imm_s(j, 1);
        let again = b.ins().icmp(IntCC::SignedLessThan, j1, n);
        b.ins().brif(again, inner, &[j1.into()], latch, &[]);
        b.switch_to_block(latch);
        let i1 = b.ins().iadd_imm_s(i, 1);
        b.ins().jump(outer, &[i1.into()]);
        b.switch_to_block(exit);
        b.ins().return_(&[zero]);
        b.seal_all_blocks();
        b.finalize(isa.frontend_config());
        let Ok(id) = module.declare_function("nest", Linkage::Local, &ctx.func.signature) else {
            panic!("cannot declare");
        };
        let code = match crate::machine_code(&*isa, &mut ctx, id, None) {
            Ok(code) => code,
            Err(e) => panic!("cannot compile: {e}"),
        };
        assert_eq!(code.alignment, u64::from(LINE));
        let Some(compiled) = ctx.compiled_code() else {
            panic!("no compiled code");
        };
        let spans = compiled_loop_spans(compiled, &[2]);
        let padding = code.bytes.len() - compiled.code_buffer().len();
        (code.bytes, padding, spans)
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn a_compiled_inner_loop_starts_within_its_lines_first_sixteen_bytes() {
        for filler in 0..12 {
            let (bytes, padding, spans) = compile_nest(filler);
            assert_eq!(bytes[..padding], x86_nops(padding)[..]);
            let [inner] = spans[..] else {
                panic!("one innermost loop expected, found {spans:?}");
            };
            assert_eq!(inner.depth, 2);
            assert!(
                (inner.start + padding as u32) % LINE < 16,
                "{filler}: {inner:?} after {padding}"
            );
        }
    }

    #[test]
    fn no_op_fill_has_the_asked_length_in_long_forms() {
        for len in 0..80 {
            assert_eq!(x86_nops(len).len(), len);
        }
        assert_eq!(x86_nops(18), [x86_nops(9), x86_nops(9)].concat());
        assert_eq!(x86_nops(1), [0x90]);
    }
}
