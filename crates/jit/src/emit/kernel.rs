//! Entry points: the layout of a kernel's or host loop's arguments, the
//! function's prologue (argument words, captures, tile coordinates) and the
//! frame plan.

use super::*;

impl<'a, 'b, 'f> Emitter<'a, 'b, 'f> {
    /// Plans the layout of kernel `kernel`: argument words, scratch, frame.
    pub(crate) fn plan(prog: &Program, kernel: FuncId) -> R<KernelLayout> {
        let func = prog.function(kernel);
        let FunctionKind::Kernel { tile, captures } = &func.kind else {
            return decline(Decline::NotAKernel);
        };
        let rank = match func.locals.first().map(|l| &l.ty) {
            Some(Type::Index(r)) => u32::from(*r),
            Some(Type::TiledIndex(s)) => u32::from(s.rank),
            _ => return decline(Decline::KernelParameterUnexpectedType),
        };
        let mut word = 1u32;
        let mut layouts = Vec::with_capacity(captures.len());
        for c in captures {
            let l = match &c.ty {
                Type::Scalar(s) => {
                    let l = CaptureLayout::Scalar(*s, word);
                    word += 1;
                    l
                }
                Type::Index(r) | Type::Extent(r) => {
                    let l = CaptureLayout::Shape(u32::from(*r), word);
                    word += u32::from(*r);
                    l
                }
                Type::Array(elem, r) | Type::ArrayView { elem, rank: r, .. } => {
                    // Elements holding unions have their tags after them.
                    let Some(size) = tessera_runtime::union_tags::tagged_size(&prog.structs, elem)
                    else {
                        return decline(Decline::ViewElementsWithoutPlainLayout);
                    };
                    let l = CaptureLayout::View((**elem).clone(), size, u32::from(*r), word);
                    word += 2 + 2 * u32::from(*r);
                    l
                }
                other => capture_layout(prog, other, &mut word, 0)?,
            };
            layouts.push(l);
        }
        // A captured struct holding views is read field by field from
        // the argument words: a kernel that may change it (a `mutable`
        // lambda's) runs in the interpreter, which shares the one object
        // between work-items.
        let written = crate::plan::locals::changed_captures(prog, func);
        if layouts
            .iter()
            .enumerate()
            .any(|(k, l)| matches!(l, CaptureLayout::Fields(_)) && written.contains(&(k as u32)))
        {
            return decline(Decline::CapturedValueAsPlace);
        }
        let extent_word = word;
        word += 2 * rank + 1;
        Ok(KernelLayout {
            captures: layouts,
            extent_word,
            words: word,
            scratch_bytes: 0,
            frame_bytes: 0,
            frame_needed: 0,
            stack_bytes: 0,
            tile: *tile,
            rank,
            extent_bound: vec![i64::from(i32::MAX); rank as usize],
            covering: Vec::new(),
            lanes: true,
            jam: true,
            join: false,
            strips: false,
            shared_calls: false,
        })
    }

    /// The emitter of one compiled function (a kernel or a host loop): its
    /// entry block, the failure and stop blocks, the fuel, work-item and
    /// frame variables, and empty scopes over `func`.
    pub(super) fn start(
        prog: &'a Program,
        func: FuncId,
        b: &'b mut FunctionBuilder<'f>,
        helpers: Helpers,
        layout: KernelLayout,
    ) -> Self {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let fail = b.create_block();
        let stopped = b.create_block();
        let fuel = b.declare_var(types::I64);
        let item = b.declare_var(types::I64);
        let frame_item = b.declare_var(types::I64);
        let fuel0 = b.ins().iconst(types::I64, FUEL);
        b.def_var(fuel, fuel0);
        let zero = b.ins().iconst(types::I64, 0);
        b.def_var(item, zero);
        b.def_var(frame_item, zero);
        let tile = layout.tile;
        let layout_shared = layout.shared_calls.then(shared::SharedBodies::default);
        let mut facts = Facts::new(prog, tile).with_extent_bound(func, &layout.extent_bound);
        if !layout.lanes {
            facts = facts.without_lanes();
        }
        Emitter {
            prog,
            b,
            layout,
            scopes: vec![Scope::new(0, func, HashMap::new())],
            loops: Vec::new(),
            region: None,
            next_region: 0,
            ptr: types::I64,
            last_region: false,
            facts,
            entry: Entry {
                helpers,
                env: params[0],
                group: params[1],
                scratch: params[2],
                frames: params[3],
                fail,
                stopped,
                fuel,
                caps: Vec::new(),
            },
            alloc: Alloc {
                frame_cursor: 0,
                scratch_cursor: 0,
                callee_tile_static: HashMap::new(),
                budget: INLINE_BUDGET,
                next_scope: 0,
                stack_bytes: 0,
                variable_blocks: 0,
            },
            wi: WorkItem {
                tile_coords: Vec::new(),
                item_coords: Vec::new(),
                item,
                need_item: false,
                frame_item,
            },
            host: None,
            vector: None,
            jam: None,
            joining: None,
            unions: unions::Unions::default(),
            frame_pointers: HashMap::new(),
            check_bools: false,
            unwritten_scratch: HashSet::new(),
            prechecked: Vec::new(),
            addr_taken: HashMap::new(),
            reassigned: HashMap::new(),
            alloc_ids: Vec::new(),
            returned: None,
            barrier_result: None,
            shared: layout_shared,
        }
    }

    /// Emits the whole kernel function into `b` (whose signature is
    /// `(env, group, scratch, frames) -> status`).
    pub(crate) fn emit(
        prog: &'a Program,
        kernel: FuncId,
        b: &'b mut FunctionBuilder<'f>,
        helpers: Helpers,
        mut layout: KernelLayout,
        min_frame: u32,
    ) -> R<KernelLayout> {
        let func = prog.function(kernel);
        let Some(body) = &func.body else {
            return decline(Decline::KernelWithoutBody);
        };
        let mut lw = Self::start(prog, kernel, b, helpers, layout.clone());
        lw.load_captures();
        // tile_static memory: one block per tile, each variable at its offset.
        let mut scratch = 0u32;
        for (i, l) in func.locals.iter().enumerate() {
            if l.space == Space::TileStatic {
                let Some((size, align)) = size_align(&prog.structs, &l.ty) else {
                    return decline(Decline::TileStaticVariableType);
                };
                scratch = scratch.next_multiple_of(align.max(1));
                lw.scopes[0]
                    .slots
                    .insert(LocalId(i as u32), Slot::TileStatic(scratch));
                scratch = scratch.saturating_add(size);
            }
        }
        lw.tile_static_tags(func, &mut scratch)?;
        layout.scratch_bytes = scratch;
        lw.alloc.scratch_cursor = scratch;
        let group = lw.entry.group;
        match layout.tile {
            Some(shape) => {
                lw.scopes[0].slots.insert(LocalId(0), Slot::Tiled);
                lw.wi.tile_coords = lw.tile_coords(group, shape);
                let barriers = lw.facts.barriers.in_block(body);
                layout.strips = barriers && waits_in_a_loop(body, &lw.facts.barriers);
                if barriers {
                    // The stride between work-items' frames must be known
                    // before the first region; inlined functions with
                    // barriers may need more, found only while lowering
                    // them: the caller then lowers again with that size.
                    layout.frame_bytes = lw.plan_frame(func, body)?.max(min_frame);
                    lw.layout.frame_bytes = layout.frame_bytes;
                    lw.clear_returned();
                }
                if layout.join {
                    lw.joined_body(body, shape)?;
                } else {
                    lw.uniform_body(body)?;
                }
                layout.frame_needed = lw
                    .alloc
                    .frame_cursor
                    .next_multiple_of(8)
                    .max(layout.frame_bytes);
                // Inlined functions may have added `tile_static` variables.
                layout.scratch_bytes = lw.alloc.scratch_cursor;
            }
            None => {
                // The index parameter is the kernel's own copy of the
                // work-item loop's counter: a kernel that changes it gets
                // variables of its own, set from the counter as each
                // work-item starts, so the loop still steps every index.
                let mut written = std::collections::HashSet::new();
                crate::plan::locals::mutated_locals(prog, body, &mut written);
                let rank = layout.rank as usize;
                let vars: Vec<Variable> = (0..rank).map(|_| lw.b.declare_var(types::I32)).collect();
                let copy = written.contains(&LocalId(0)).then(|| {
                    (0..rank)
                        .map(|_| lw.b.declare_var(types::I32))
                        .collect::<Vec<Variable>>()
                });
                let param = copy.clone().unwrap_or_else(|| vars.clone());
                lw.scopes[0].slots.insert(LocalId(0), Slot::Vars(param));
                lw.wi.item_coords = vars;
                lw.flat_loop(group, body, copy.as_deref())?;
            }
        }
        layout.stack_bytes = lw.alloc.stack_bytes;
        lw.finish();
        Ok(layout)
    }

    /// Plans a host statement (a loop): the locals declared outside it
    /// that its compiled part names, in order, and where each sits in the
    /// argument words, then its exits (see [`crate::plan::host`]). Scalars
    /// are read and written back; vectors and views are buffers like a
    /// kernel's views. A reference stands for what it refers to (the
    /// interpreter hands that over).
    pub(crate) fn plan_host(prog: &Program, func: FuncId, stmt: &Stmt) -> R<HostLayout> {
        let f = prog.function(func);
        let exits = crate::plan::host::host_exits(prog, stmt, &|l| {
            f.get_local(l).map(|local| (&local.ty, local.by_ref))
        })?;
        let mut word = 1u32;
        let mut locals = Vec::new();
        let mut captures = Vec::new();
        for &l in &exits.named {
            if exits.declared.contains(&l) {
                continue;
            }
            let Some(local) = f.get_local(l) else {
                return decline(Decline::UnknownLocal);
            };
            captures.push(host_capture(prog, &local.ty, local.by_ref, &mut word)?);
            locals.push(l);
        }
        let outside: std::collections::BTreeSet<LocalId> = locals.iter().copied().collect();
        let appended_set = crate::plan::growth::appended_vectors(stmt, &outside, &|l| {
            f.get_local(l).map(|local| (&local.ty, local.by_ref))
        })?;
        let appended: Vec<bool> = locals.iter().map(|l| appended_set.contains(l)).collect();
        let calls = host_calls(prog, stmt);
        let mut named_globals = exits.globals.clone();
        for c in &calls {
            if let Some(body) = prog.get_function(*c).and_then(|f| f.body.as_ref()) {
                tessera_ir::visit::walk_block(body, &mut |_| {}, &mut |e| {
                    if let ExprKind::Global(g) = &e.kind {
                        named_globals.insert(*g);
                    }
                });
            }
        }
        let mut globals = Vec::new();
        for g in named_globals {
            let Some(global) = prog.get_global(g) else {
                return decline(Decline::GlobalVariableInKernel);
            };
            captures.push(host_capture(prog, &global.ty, false, &mut word)?);
            globals.push(g);
        }
        for &l in &exits.exit_locals {
            let Some(Type::Scalar(s)) = f.get_local(l).map(|local| &local.ty) else {
                return decline(Decline::HostExitLocal);
            };
            captures.push(CaptureLayout::Scalar(*s, word));
            word += 1;
        }
        let exit_word = word;
        captures.push(CaptureLayout::Scalar(Scalar::Int, exit_word));
        word += 1;
        // A view copied into a local, or passed to a function, may be
        // written there: the statement is then taken to write every
        // vector and view it names that its type lets it write.
        let written = element_writes(prog, stmt);
        let copies = copies_views(stmt);
        // A C array of scalars is written only where the statement writes
        // an element (the interpreter then hands a read-only one over as
        // its own memory); any other struct or array (an index or extent
        // among them) is taken as written.
        let plain_array = |ty: Option<&Type>| matches!(ty, Some(Type::CArray(elem, _)) if elem.scalar().is_some());
        let array_writes = crate::plan::locals::changed_globals(prog, f, stmt);
        let written = locals
            .iter()
            .map(|l| {
                appended_set.contains(l)
                    || written.contains(l)
                    || matches!(
                        f.get_local(*l).map(|x| &x.ty),
                        Some(Type::CArray(..) | Type::Struct(_) | Type::Index(_) | Type::Extent(_))
                    ) && (!plain_array(f.get_local(*l).map(|x| &x.ty)) || copies)
                    || (copies
                        && !matches!(
                            f.get_local(*l).map(|x| &x.ty),
                            Some(
                                Type::Scalar(_)
                                    | Type::ArrayView {
                                        read_only: true,
                                        ..
                                    }
                            )
                        ))
            })
            .collect();
        let global_written = globals
            .iter()
            .map(|g| {
                let ty = prog.get_global(*g).map(|x| &x.ty);
                if plain_array(ty)
                    && let Some(writes) = &array_writes
                {
                    return writes.contains(g);
                }
                !matches!(
                    prog.get_global(*g).map(|x| &x.ty),
                    Some(
                        Type::Scalar(_)
                            | Type::ArrayView {
                                read_only: true,
                                ..
                            }
                    )
                )
            })
            .collect();
        Ok(HostLayout {
            locals,
            written,
            appended,
            captures,
            words: word,
            exits,
            exit_word,
            calls,
            globals,
            global_written,
            print_items: Vec::new(),
        })
    }

    /// Emits a host statement as a function `(args, _, _, _) -> status`
    /// that runs it once, or up to one of its exits, and writes the scalars
    /// it names back (and, at an exit, the exit's locals and number).
    pub(crate) fn emit_host(
        prog: &'a Program,
        func: FuncId,
        stmt: &Stmt,
        b: &'b mut FunctionBuilder<'f>,
        helpers: Helpers,
        plan: &HostLayout,
    ) -> R<Vec<tessera_runtime::launch::PrintItem>> {
        let layout = KernelLayout::without_launch(plan.captures.clone(), plan.words);
        let mut lw = Self::start(prog, func, b, helpers, layout);
        lw.load_captures();
        // The named locals and globals: scalars in variables, vectors and
        // views as views, C arrays and structs in their buffers.
        let caps = std::mem::take(&mut lw.entry.caps);
        let mut caps = caps.into_iter();
        let f = prog.function(func);
        let mut globals = HashMap::new();
        let named = plan
            .locals
            .iter()
            .map(|l| (Some(*l), f.local(*l).ty.clone()))
            .chain(
                plan.globals
                    .iter()
                    .map(|g| (None, prog.globals[g.index()].ty.clone())),
            );
        for (k, (l, ty)) in named.enumerate() {
            let Some(v) = caps.next() else {
                return decline(Decline::HostVariableKind);
            };
            let slot = match v {
                V::S(x) => {
                    let t = lw.b.func.dfg.value_type(x);
                    let var = lw.b.declare_var(t);
                    lw.b.def_var(var, x);
                    Slot::Vars(vec![var])
                }
                // A pointer from outside moves over its whole vector.
                V::View(view) if matches!(ty, Type::Ptr { .. }) && l.is_some() => {
                    lw.captured_pointer(k, &view)?
                }
                // A vector it appends to: its address and length in
                // variables, read again after each append.
                V::View(view) if plan.appended.get(k).copied().unwrap_or(false) => {
                    let Some(CaptureLayout::View(_, _, 1, word)) = plan.captures.get(k) else {
                        return decline(Decline::HostVariableKind);
                    };
                    if view.ext.len() != 1 {
                        return decline(Decline::HostVariableKind);
                    }
                    // Read as memory the run writes (`flags()`), not as
                    // the read-only words of the other arguments.
                    let env = lw.entry.env;
                    let first =
                        lw.b.ins()
                            .load(types::I64, flags(), env, (*word * 8) as i32);
                    let count =
                        lw.b.ins()
                            .load(types::I64, flags(), env, ((*word + 2) * 8) as i32);
                    let base = lw.b.declare_var(types::I64);
                    lw.b.def_var(base, first);
                    let len_var = lw.b.declare_var(types::I64);
                    lw.b.def_var(len_var, count);
                    // No room known yet: the first append asks for it.
                    let room = lw.b.declare_var(types::I64);
                    lw.b.def_var(room, count);
                    Slot::Growing(Growing {
                        base,
                        len: len_var,
                        room,
                        elem: view.elem,
                        elem_size: view.elem_size,
                        arg: k as u32,
                        word: *word,
                    })
                }
                V::View(view) => Slot::View(view),
                V::Mem(addr) => Slot::Ref(Place::Mem(addr, ty)),
                // A closure holding references, member by member.
                V::Obj(fields) => Slot::Ref(Place::Obj(fields)),
                _ => return decline(Decline::HostVariableKind),
            };
            match l {
                Some(l) => {
                    lw.scopes[0].slots.insert(l, slot);
                }
                None => {
                    globals.insert(plan.globals[k - plan.locals.len()], slot);
                }
            }
        }
        let named = plan.locals.len() + plan.globals.len();
        let exit_words = plan.captures[named..]
            .iter()
            .filter_map(|c| match c {
                CaptureLayout::Scalar(s, w) => Some((*w, *s)),
                _ => None,
            })
            .collect();
        let end = lw.b.create_block();
        lw.host = Some(HostCtx {
            exits: plan.exits.clone(),
            exit_words,
            exit_word: plan.exit_word,
            end,
            globals,
            print_items: Vec::new(),
        });
        lw.stmt(stmt)?;
        // Ran to its end: no exit taken.
        let none = lw.b.ins().iconst(types::I64, 0);
        lw.b.ins()
            .store(flags(), none, lw.entry.env, (plan.exit_word * 8) as i32);
        lw.b.ins().jump(end, &[]);
        lw.b.switch_to_block(end);
        // Scalars go back to their words.
        let back: Vec<Option<Slot>> = plan
            .locals
            .iter()
            .map(|l| lw.scopes[0].slots.get(l).cloned())
            .chain(plan.globals.iter().map(|g| lw.host_global(*g)))
            .collect();
        for (c, slot) in plan.captures.iter().zip(back) {
            match (c, slot) {
                (CaptureLayout::Scalar(s, w), Some(Slot::Vars(vars))) => {
                    let v = lw.b.use_var(vars[0]);
                    let raw = lw.scalar_as_word(v, *s);
                    lw.b.ins()
                        .store(flags(), raw, lw.entry.env, (*w * 8) as i32);
                }
                // A pointer from outside: its offset, in its view's offset
                // word (`exec::run_host` hands it back).
                (CaptureLayout::View(_, _, 1, w), Some(Slot::Ptr(_, var))) => {
                    let v = lw.b.use_var(var);
                    lw.b.ins()
                        .store(flags(), v, lw.entry.env, ((*w + 1) * 8) as i32);
                }
                // A vector appended to: its length, in its extent word
                // (`exec::run_host` counts the elements written in place).
                (CaptureLayout::View(_, _, 1, w), Some(Slot::Growing(g))) => {
                    let n = lw.b.use_var(g.len);
                    lw.b.ins()
                        .store(flags(), n, lw.entry.env, ((*w + 2) * 8) as i32);
                }
                _ => {}
            }
        }
        lw.finish();
        Ok(lw.host.take().map(|h| h.print_items).unwrap_or_default())
    }

    /// When branch `then` of `if` statement `id` of a host statement is
    /// one it does not run (see [`crate::plan::host::HostExits::bails`]):
    /// stops as a failed check does; true when it did.
    pub(super) fn host_bail(&mut self, id: tessera_ir::StmtId, then: bool) -> bool {
        if self.scopes.len() != 1
            || !self
                .host
                .as_ref()
                .is_some_and(|h| h.exits.bails.contains(&(id, then)))
        {
            return false;
        }
        let fail = self.entry.fail;
        self.b.ins().jump(fail, &[]);
        self.dead_block();
        true
    }

    /// Where global `g` lives while a host statement runs.
    pub(super) fn host_global(&self, g: GlobalId) -> Option<Slot> {
        self.host.as_ref().and_then(|h| h.globals.get(&g).cloned())
    }

    /// The host statement's exit for `kind`, if it has one (only in the
    /// statement's own code, not in an inlined call): stores the exit's
    /// locals and number and leaves; true when it did.
    pub(super) fn host_exit(&mut self, kind: tessera_runtime::launch::HostExitKind) -> R<bool> {
        if self.scopes.len() != 1 {
            return Ok(false);
        }
        let Some(host) = &self.host else {
            return Ok(false);
        };
        let Some(&number) = host.exits.by_kind.get(&kind) else {
            return Ok(false);
        };
        let Some(exit) = host.exits.exits.get(number as usize - 1) else {
            return decline(Decline::HostExitLocal);
        };
        let mut stores = Vec::new();
        for &at in &exit.locals {
            let (Some(&l), Some(&(w, s))) =
                (host.exits.exit_locals.get(at), host.exit_words.get(at))
            else {
                return decline(Decline::HostExitLocal);
            };
            let Some(Slot::Vars(vars)) = self.scopes[0].slots.get(&l) else {
                return decline(Decline::HostExitLocal);
            };
            stores.push((vars[0], w, s));
        }
        let (exit_word, end) = (host.exit_word, host.end);
        for (var, w, s) in stores {
            let v = self.b.use_var(var);
            let raw = self.scalar_as_word(v, s);
            self.b
                .ins()
                .store(flags(), raw, self.entry.env, (w * 8) as i32);
        }
        let code = self.b.ins().iconst(types::I64, i64::from(number));
        self.b
            .ins()
            .store(flags(), code, self.entry.env, (exit_word * 8) as i32);
        self.b.ins().jump(end, &[]);
        self.dead_block();
        Ok(true)
    }

    /// Ends an emitted function begun by [`Emitter::start`]: the normal
    /// return, then the failure and stop blocks' returns.
    fn finish(&mut self) {
        for (block, status) in [
            (None, STATUS_OK),
            (Some(self.entry.fail), STATUS_FAILED),
            (Some(self.entry.stopped), STATUS_STOPPED),
        ] {
            if let Some(block) = block {
                self.b.switch_to_block(block);
            }
            let st = self.b.ins().iconst(types::I32, status);
            self.b.ins().return_(&[st]);
        }
        if let Some(r) = self.returned {
            self.b.switch_to_block(r.done);
            let st = self.b.ins().iconst(types::I32, STATUS_OK);
            self.b.ins().return_(&[st]);
        }
        self.close_shared();
        self.b.seal_all_blocks();
    }

    /// A scalar as its 64-bit argument word (sign- or zero-extended as the
    /// interpreter keeps integers).
    pub(super) fn scalar_as_word(&mut self, v: Value, s: Scalar) -> Value {
        match s {
            Scalar::Long | Scalar::ULong => v,
            Scalar::Double => self.b.ins().bitcast(types::I64, MemFlagsData::new(), v),
            Scalar::Float => {
                let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), v);
                self.b.ins().uextend(types::I64, bits)
            }
            Scalar::UInt | Scalar::Bool | Scalar::UChar | Scalar::UShort => {
                self.b.ins().uextend(types::I64, v)
            }
            Scalar::Int | Scalar::Char | Scalar::Short | Scalar::WChar => {
                self.b.ins().sextend(types::I64, v)
            }
        }
    }

    pub(super) fn word(&mut self, w: u32) -> Value {
        self.b.ins().load(
            types::I64,
            flags().with_readonly(),
            self.entry.env,
            (w * 8) as i32,
        )
    }

    pub(super) fn load_captures(&mut self) {
        let layouts = self.layout.captures.clone();
        for l in &layouts {
            let v = self.load_capture(l);
            self.entry.caps.push(v);
        }
    }

    /// A captured value from its words (a struct holding views field by
    /// field).
    fn load_capture(&mut self, l: &CaptureLayout) -> V {
        match l {
            CaptureLayout::Fields(fields) => {
                V::Obj(fields.iter().map(|f| self.load_capture(f)).collect())
            }
            CaptureLayout::Scalar(s, w) => {
                let raw = self.word(*w);
                V::S(self.scalar_of_word(raw, *s))
            }
            CaptureLayout::Shape(r, w) => V::Shape(
                (0..*r)
                    .map(|d| {
                        let x = self.word(w + d);
                        self.b.ins().ireduce(types::I32, x)
                    })
                    .collect(),
            ),
            CaptureLayout::View(elem, elem_size, r, w) => {
                let (r, w) = (*r, *w);
                let base = self.word(w);
                let offset = self.word(w + 1);
                let ext = (0..r).map(|d| self.word(w + 2 + d)).collect();
                let strides = (0..r).map(|d| self.word(w + 2 + r + d)).collect();
                V::View(ViewV {
                    base,
                    offset,
                    ext,
                    strides,
                    elem: elem.clone(),
                    elem_size: *elem_size,
                })
            }
            CaptureLayout::Object(_, w) => V::Mem(self.word(*w)),
        }
    }

    /// A scalar from its 64-bit argument word.
    pub(super) fn scalar_of_word(&mut self, raw: Value, s: Scalar) -> Value {
        match s {
            Scalar::Long | Scalar::ULong => raw,
            Scalar::Double => self.b.ins().bitcast(types::F64, MemFlagsData::new(), raw),
            Scalar::Float => {
                let low = self.b.ins().ireduce(types::I32, raw);
                self.b.ins().bitcast(types::F32, MemFlagsData::new(), low)
            }
            other => self.b.ins().ireduce(clif_type(other), raw),
        }
    }

    /// The tile's coordinates from its linear number (last dimension fastest).
    pub(super) fn tile_coords(&mut self, group: Value, shape: TileShape) -> Vec<Value> {
        let rank = usize::from(shape.rank);
        let mut coords = vec![group; rank];
        let mut rest = group;
        for d in (0..rank).rev() {
            let per = self.word(self.layout.extent_word + rank as u32 + d as u32);
            if d == 0 {
                coords[d] = rest;
            } else {
                // One division: the remainder from the quotient.
                let quotient = self.b.ins().udiv(rest, per);
                let whole = self.b.ins().imul(quotient, per);
                coords[d] = self.b.ins().isub(rest, whole);
                rest = quotient;
            }
        }
        coords
            .into_iter()
            .map(|c| self.b.ins().ireduce(types::I32, c))
            .collect()
    }

    /// Gives the kernel's locals that live across barriers their frame
    /// slots (see [`Facts::plan_frame`]); the frame size per work-item.
    pub(super) fn plan_frame(&mut self, func: &Function, body: &IrBlock) -> R<u32> {
        let frame = self.facts.plan_frame(func, body)?;
        for (id, at) in frame.slots {
            let local = func.local(id);
            let ty = &local.ty;
            let size = match ty {
                // A reference's address (see `Facts::ref_addressed`).
                _ if self.facts.ref_addressed.contains(&id) => {
                    Some(crate::plan::frame::REFERENCE_SLOT)
                }
                Type::Ptr { .. } => Some(crate::plan::frame::POINTER_SLOT),
                _ => crate::plan::frame::image_layout(self.prog, ty).map(|(size, _)| size),
            };
            let Some(size) = size else {
                return decline(Decline::LocalTypeDeclaredBetweenBarriers);
            };
            self.scopes[0].frame.insert(
                id,
                FrameSlot {
                    off: at,
                    stride: size,
                },
            );
        }
        let mut end = frame.end;
        // A kernel that may return before its last barrier keeps which of
        // its work-items have (see [`Returned`]), a byte each, in a slot
        // whose array starts on a word so it can be cleared a word at a
        // time.
        let split = last_region_start(body, &self.facts.barriers);
        if body.stmts[..split].iter().any(stmt_has_return) {
            let off = end.next_multiple_of(8);
            end = off + 1;
            let count = self.b.declare_var(types::I32);
            let zero = self.b.ins().iconst(types::I32, 0);
            self.b.def_var(count, zero);
            self.returned = Some(Returned {
                slot: FrameSlot { off, stride: 1 },
                count,
                done: self.b.create_block(),
            });
        }
        self.alloc.frame_cursor = end;
        Ok(end.next_multiple_of(8).max(8))
    }

    /// Marks every work-item of the tile as not returned (see
    /// [`Returned`]): the slot's array, `tile_threads` bytes from a word
    /// boundary, cleared a word at a time, in a loop for large tiles.
    pub(super) fn clear_returned(&mut self) {
        let (Some(r), Some(shape)) = (self.returned, self.layout.tile) else {
            return;
        };
        let threads = shape.threads() as i64;
        let base = self
            .b
            .ins()
            .iadd_imm_s(self.entry.frames, i64::from(r.slot.off) * threads);
        let words = threads / 8;
        let zero = self.b.ins().iconst(types::I64, 0);
        if words <= 8 {
            for w in 0..words {
                self.b.ins().store(flags(), zero, base, (w * 8) as i32);
            }
        } else {
            let head = self.b.create_block();
            let exit = self.b.create_block();
            let at = self.b.append_block_param(head, self.ptr);
            self.b.ins().jump(head, &[base.into()]);
            self.b.switch_to_block(head);
            self.b.ins().store(flags(), zero, at, 0);
            let next = self.b.ins().iadd_imm_s(at, 8);
            let end = self.b.ins().iadd_imm_s(base, words * 8);
            let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, end);
            self.b.ins().brif(more, head, &[next.into()], exit, &[]);
            self.b.switch_to_block(exit);
        }
        let zero8 = self.b.ins().iconst(types::I8, 0);
        for k in words * 8..threads {
            self.b.ins().store(flags(), zero8, base, k as i32);
        }
    }
}

/// The signature of every compiled kernel: `(env, group, scratch, frames) -> status`.
pub(crate) fn kernel_signature(sig: &mut cranelift_codegen::ir::Signature) {
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I32));
}

/// Every function a host statement calls, directly or through others.
fn host_calls(prog: &Program, stmt: &Stmt) -> Vec<FuncId> {
    let mut todo = Vec::new();
    walk_stmt(stmt, &mut |_| {}, &mut |e| {
        if let ExprKind::Call { func, .. } = e.kind {
            todo.push(func);
        }
    });
    let mut seen = BTreeSet::new();
    while let Some(f) = todo.pop() {
        if !seen.insert(f) {
            continue;
        }
        if let Some(body) = prog.get_function(f).and_then(|f| f.body.as_ref()) {
            tessera_ir::visit::walk_block(body, &mut |_| {}, &mut |e| {
                if let ExprKind::Call { func, .. } = e.kind {
                    todo.push(func);
                }
            });
        }
    }
    seen.into_iter().collect()
}

/// True when a host statement calls a function or declares a view or
/// vector local, or a reference: ways a vector's or view's elements may be
/// written under another name.
fn copies_views(stmt: &Stmt) -> bool {
    let found = std::cell::Cell::new(false);
    let viewish = |ty: &Type| {
        matches!(
            ty,
            Type::ArrayView {
                read_only: false,
                ..
            } | Type::Array(..)
                | Type::Vector(_)
        )
    };
    walk_stmt(
        stmt,
        &mut |s| match &s.kind {
            StmtKind::Let {
                init: Some(Init::Ref(_)),
                ..
            } => found.set(true),
            StmtKind::Let {
                init: Some(Init::Expr(e)),
                ..
            } if viewish(&e.ty) => found.set(true),
            _ => {}
        },
        &mut |e| {
            if matches!(e.kind, ExprKind::Call { .. }) {
                found.set(true);
            }
        },
    );
    found.get()
}

/// Where a local or global of type `ty` that a host statement names sits
/// in the argument words (from `word` on, which it moves past them).
fn host_capture(prog: &Program, ty: &Type, by_ref: bool, word: &mut u32) -> R<CaptureLayout> {
    let c = match ty {
        Type::Scalar(s) => {
            let c = CaptureLayout::Scalar(*s, *word);
            *word += 1;
            c
        }
        // Elements of any type with a plain layout: the interpreter hands
        // a vector of structs over as their bytes, as it does an array's.
        Type::Vector(elem) => {
            let Some((size, _)) = size_align(&prog.structs, elem) else {
                return decline(Decline::VectorNonScalars);
            };
            let c = CaptureLayout::View((**elem).clone(), size, 1, *word);
            *word += 4;
            c
        }
        Type::Array(elem, r) | Type::ArrayView { elem, rank: r, .. } => {
            let Some((size, _)) = size_align(&prog.structs, elem) else {
                return decline(Decline::ViewElementsWithoutPlainLayout);
            };
            let c = CaptureLayout::View((**elem).clone(), size, u32::from(*r), *word);
            *word += 2 + 2 * u32::from(*r);
            c
        }
        // A pointer into a vector's elements: the elements from the one it
        // points to on, as a view; compiled code moves it over the whole
        // vector (`Emitter::captured_pointer`) and hands its offset back.
        Type::Ptr { elem, .. } => {
            let Some((size, _)) = size_align(&prog.structs, elem) else {
                return decline(Decline::Pointer);
            };
            if size == 0 || elem.contains_union(&prog.structs) {
                return decline(Decline::Pointer);
            }
            let c = CaptureLayout::View((**elem).clone(), size, 1, *word);
            *word += 4;
            c
        }
        // An index or extent as its C++ layout (its components as `int`s),
        // like a struct of them.
        Type::CArray(..) | Type::Struct(_) | Type::Index(_) | Type::Extent(_)
            if size_align(&prog.structs, ty).is_some() =>
        {
            let c = CaptureLayout::Object(ty.clone(), *word);
            *word += 1;
            c
        }
        // A closure holding references: member by member, each reference
        // as the object it refers to (see `plan::host::holds_references`).
        Type::Struct(id) if crate::plan::host::holds_references(prog, ty) => {
            let Some(def) = prog.get_struct(*id) else {
                return decline(Decline::UnknownStruct);
            };
            let mut fields = Vec::with_capacity(def.fields.len());
            for (_, fty) in &def.fields {
                let (target, by_ref) = match fty {
                    Type::Ptr { elem, .. } => (&**elem, true),
                    other => (other, false),
                };
                fields.push(match target {
                    // A scalar: memory of its own, written back (a
                    // `mutable` lambda may change its own members too).
                    Type::Scalar(s) => {
                        let c = CaptureLayout::Object(Type::Scalar(*s), *word);
                        *word += 1;
                        c
                    }
                    other => host_capture(prog, other, by_ref, word)?,
                });
            }
            CaptureLayout::Fields(fields)
        }
        _ if by_ref => {
            return decline(Decline::ReferenceLocal(tessera_ir::display(
                ty,
                &prog.structs,
            )));
        }
        _ => {
            return decline(Decline::HostVariableType(tessera_ir::display(
                ty,
                &prog.structs,
            )));
        }
    };
    Ok(c)
}

/// How deeply structs holding views may nest in a capture (the
/// interpreter hands deeper ones over no more than this).
const MAX_FIELD_DEPTH: u32 = 16;

/// The layout of a captured struct or C array at word `word` (advanced
/// past it): a plain one in a buffer of its own, a struct holding views
/// field by field (scalars, indices and views in words of their own).
fn capture_layout(prog: &Program, ty: &Type, word: &mut u32, depth: u32) -> R<CaptureLayout> {
    let refuse = || {
        decline(Decline::CapturedType(tessera_ir::display(
            ty,
            &prog.structs,
        )))
    };
    Ok(match ty {
        Type::Struct(_) | Type::CArray(..) if size_align(&prog.structs, ty).is_some() => {
            let l = CaptureLayout::Object(ty.clone(), *word);
            *word += 1;
            l
        }
        Type::Struct(id) if depth < MAX_FIELD_DEPTH => {
            let Some(def) = prog.structs.get(id.index()) else {
                return refuse();
            };
            if def.is_union {
                return refuse();
            }
            let mut fields = Vec::with_capacity(def.fields.len());
            for (_, fty) in &def.fields {
                fields.push(match fty {
                    Type::Scalar(s) => {
                        let l = CaptureLayout::Scalar(*s, *word);
                        *word += 1;
                        l
                    }
                    Type::Index(r) | Type::Extent(r) => {
                        let l = CaptureLayout::Shape(u32::from(*r), *word);
                        *word += u32::from(*r);
                        l
                    }
                    Type::Array(elem, r) | Type::ArrayView { elem, rank: r, .. } => {
                        let Some((size, _)) = size_align(&prog.structs, elem) else {
                            return decline(Decline::ViewElementsWithoutPlainLayout);
                        };
                        let l = CaptureLayout::View((**elem).clone(), size, u32::from(*r), *word);
                        *word += 2 + 2 * u32::from(*r);
                        l
                    }
                    other => capture_layout(prog, other, word, depth + 1)?,
                });
            }
            CaptureLayout::Fields(fields)
        }
        _ => return refuse(),
    })
}

/// Whether a loop in `body` waits at a barrier: a kernel stepping through
/// bands of its inputs, one `tile_static` block at a time.
fn waits_in_a_loop(body: &IrBlock, barriers: &tessera_ir::facts::Barriers) -> bool {
    let mut found = false;
    tessera_ir::visit::for_each_stmt(body, &mut |node| {
        if !found
            && let tessera_ir::visit::Node::Stmt(s) = node
            && matches!(s.kind, tessera_ir::StmtKind::Loop { .. })
        {
            found = barriers.in_stmt(s);
        }
    });
    found
}
