//! Functions with barriers emitted once per binding. Inlined at each call
//! (see [`Emitter::barrier_call`]), a tree of helpers that each wait and
//! call the next one twice grows with the number of paths through it:
//! eleven levels make 2,048 barriers and pass the emitter's budgets. A
//! kernel declined so is lowered again with such calls *shared*: a
//! function's body is emitted at its first call, and each later call that
//! binds its parameters to the same places (the same frame slots, the same
//! `tile_static` variables, the same captures) stores its arguments, sets
//! the body's return variable to its own number, and jumps to the body,
//! whose end goes back by that number.
//!
//! Invariant: at the level of the barriers a tile has one thread of
//! control, and a body is never entered again while it runs (C++ AMP has
//! no recursion, and a call met while its body is being emitted is
//! inlined), so one return variable per body is enough.
//!
//! Invariant: emitting a body changes nothing the caller's later code
//! relies on other than through the frame and Cranelift variables, both of
//! which hold whatever the path taken left in them: a later call that only
//! jumps is lowered as if the body had been emitted there.

use super::*;
use cranelift_codegen::ir::JumpTableData;

/// How a call binds one parameter of a function with barriers: two calls
/// that bind every parameter alike can run the same code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Binding {
    /// The tiled index.
    Tiled,
    /// A reference to the `tile_static` variable at this offset.
    Scratch(u32),
    /// A reference to the local in this frame slot.
    Frame(FrameSlot),
    /// A captured view, or a `const` reference to a captured object.
    Capture(u32),
    /// A value each work-item stores into the parameter's own frame slot.
    Value,
}

/// What makes two calls of a function with barriers share its code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct SharedKey {
    func: FuncId,
    bindings: Vec<Binding>,
    /// The frame slot the caller wants the value in (`return f(t);`).
    dest: Option<FrameSlot>,
}

/// One function's body emitted once, and the calls that jump to it.
struct SharedBody {
    /// Its first block, which every call jumps to.
    entry: Block,
    /// The number of the call being run: where the end goes back to.
    ret: Variable,
    /// Its end, filled once every call is known; `None` while the body is
    /// being emitted.
    exit: Option<Block>,
    /// Where each call goes on, by the call's number.
    continuations: Vec<Block>,
    /// The frame slots of its locals: the parameters each call stores to.
    frame: HashMap<LocalId, FrameSlot>,
    /// The frame slot each work-item's `return` leaves the value in.
    ret_frame: Option<FrameSlot>,
}

/// The shared bodies of a kernel lowered with shared calls.
#[derive(Default)]
pub(super) struct SharedBodies {
    bodies: Vec<SharedBody>,
    by_key: HashMap<SharedKey, usize>,
}

impl SharedBodies {
    /// The body begun under `key`, if any.
    fn get_mut(&mut self, key: &SharedKey) -> Option<&mut SharedBody> {
        let &i = self.by_key.get(key)?;
        self.bodies.get_mut(i)
    }
}

impl Emitter<'_, '_, '_> {
    /// The key under which a call of `callee` (`func`) with `args` shares
    /// its code, when the kernel is lowered with shared calls; `None` to
    /// inline it: not so lowered, some work-items may have returned (the
    /// body's code depends on that), the body is being emitted, or an
    /// argument is bound in a way the inlined call alone handles (its
    /// decline then says why).
    pub(super) fn shared_key(
        &self,
        func: FuncId,
        callee: &Function,
        args: &[Expr],
        dest: Option<FrameSlot>,
    ) -> Option<SharedKey> {
        let shared = self.shared.as_ref()?;
        if self.returned.is_some() {
            return None;
        }
        let mut bindings = Vec::with_capacity(args.len());
        for (param, a) in callee.locals.iter().zip(args) {
            let binding = match (&param.ty, &a.kind) {
                (Type::TiledIndex(_), _) => Binding::Tiled,
                (Type::ArrayView { .. } | Type::Array(..), ExprKind::Capture(c))
                    if !param.by_ref =>
                {
                    Binding::Capture(*c)
                }
                (_, ExprKind::Capture(c)) if param.by_ref && param.is_const => Binding::Capture(*c),
                (_, ExprKind::Local(l)) if param.by_ref => match self.scope().slots.get(l) {
                    Some(Slot::TileStatic(at)) => Binding::Scratch(*at),
                    _ => Binding::Frame(*self.scope().frame.get(l)?),
                },
                (Type::ArrayView { .. } | Type::Array(..), _) => return None,
                _ if param.by_ref => return None,
                _ => Binding::Value,
            };
            bindings.push(binding);
        }
        let key = SharedKey {
            func,
            bindings,
            dest,
        };
        match shared.by_key.get(&key) {
            Some(&i) if shared.bodies[i].exit.is_none() => None,
            _ => Some(key),
        }
    }

    /// A call under `key` whose body is already emitted: its arguments
    /// stored into the body's parameters, then a jump to the body, which
    /// comes back to a new block where the caller goes on. `None` when no
    /// body is emitted under `key` yet; else where the value is left.
    pub(super) fn enter_shared(
        &mut self,
        key: &SharedKey,
        callee: &Function,
        args: &[Expr],
    ) -> R<Option<Option<FrameSlot>>> {
        let Some(body) = self.shared.as_mut().and_then(|s| s.get_mut(key)) else {
            return Ok(None);
        };
        let (entry, ret, frame, ret_frame) =
            (body.entry, body.ret, body.frame.clone(), body.ret_frame);
        let number = body.continuations.len();
        // The slots a shared body names are the same at every call (the
        // key); the views and the tiled index need nothing stored.
        let mut unused = HashMap::new();
        self.bind_barrier_args(callee, args, &frame, &mut unused)?;
        let n = self.b.ins().iconst(types::I32, number as i64);
        self.b.def_var(ret, n);
        self.b.ins().jump(entry, &[]);
        let next = self.b.create_block();
        if let Some(body) = self.shared.as_mut().and_then(|s| s.get_mut(key)) {
            body.continuations.push(next);
        }
        self.b.switch_to_block(next);
        Ok(Some(ret_frame))
    }

    /// Starts the body of the first call under `key`: the call is number 0,
    /// and the body begins in a block of its own that later calls jump to.
    pub(super) fn begin_shared(
        &mut self,
        key: SharedKey,
        frame: &HashMap<LocalId, FrameSlot>,
        ret_frame: Option<FrameSlot>,
    ) {
        let entry = self.b.create_block();
        let ret = self.var(types::I32);
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.def_var(ret, zero);
        self.b.ins().jump(entry, &[]);
        self.b.switch_to_block(entry);
        if let Some(shared) = &mut self.shared {
            shared.by_key.insert(key, shared.bodies.len());
            shared.bodies.push(SharedBody {
                entry,
                ret,
                exit: None,
                continuations: Vec::new(),
                frame: frame.clone(),
                ret_frame,
            });
        }
    }

    /// Ends the body begun under `key`: its end jumps to a block filled
    /// by [`Emitter::close_shared`], and the first call goes on in a block
    /// of its own.
    pub(super) fn end_shared(&mut self, key: &SharedKey) {
        if self.shared.as_mut().and_then(|s| s.get_mut(key)).is_none() {
            return;
        }
        let exit = self.b.create_block();
        self.b.ins().jump(exit, &[]);
        let next = self.b.create_block();
        if let Some(body) = self.shared.as_mut().and_then(|s| s.get_mut(key)) {
            body.exit = Some(exit);
            body.continuations.push(next);
        }
        self.b.switch_to_block(next);
    }

    /// Fills the end of every shared body, once the kernel is emitted and
    /// every call known: a branch on the return variable to the block
    /// after the call that entered it.
    pub(super) fn close_shared(&mut self) {
        let Some(shared) = self.shared.take() else {
            return;
        };
        for body in &shared.bodies {
            let Some(exit) = body.exit else { continue };
            let Some((&last, rest)) = body.continuations.split_last() else {
                continue;
            };
            self.b.switch_to_block(exit);
            if rest.is_empty() {
                self.b.ins().jump(last, &[]);
                continue;
            }
            let n = self.b.use_var(body.ret);
            // Numbers past the table cannot occur: the last call is the
            // default.
            let default = self.b.func.dfg.block_call(last, &[]);
            let table: Vec<_> = rest
                .iter()
                .map(|&c| self.b.func.dfg.block_call(c, &[]))
                .collect();
            let jt = self
                .b
                .create_jump_table(JumpTableData::new(default, &table));
            self.b.ins().br_table(n, jt);
        }
    }
}
