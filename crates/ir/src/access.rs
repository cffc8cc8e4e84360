//! Typed lookups by id (see the crate documentation for when to use the
//! indexing form and when the `get_` form), and the numbering of statements.

use crate::{
    FuncId, Function, Global, GlobalId, Local, LocalId, Program, Space, StmtId, StructDef,
    StructId, visit,
};

impl FuncId {
    /// The position of this function in [`Program::functions`], for tables
    /// kept beside the program.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl GlobalId {
    /// The position of this global in [`Program::globals`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl LocalId {
    /// The position of this local in [`Function::locals`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl StructId {
    /// The position of this struct in [`Program::structs`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl StmtId {
    /// The position of this statement in a table with one entry per
    /// statement of its function (`Function::stmt_count` entries).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl Program {
    /// The function `id`; panics on an id from another program.
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    /// The function `id`, or `None` when the program has none (a malformed program).
    pub fn get_function(&self, id: FuncId) -> Option<&Function> {
        self.functions.get(id.index())
    }

    /// The function `id`, to change; panics on an id from another program.
    pub fn function_mut(&mut self, id: FuncId) -> &mut Function {
        &mut self.functions[id.index()]
    }

    /// Every function with its id, in id order.
    pub fn functions_with_ids(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .map(|(i, f)| (FuncId(i as u32), f))
    }

    /// The struct `id`; panics on an id from another program.
    pub fn struct_def(&self, id: StructId) -> &StructDef {
        &self.structs[id.index()]
    }

    /// The struct `id`, or `None` when the program has none.
    pub fn get_struct(&self, id: StructId) -> Option<&StructDef> {
        self.structs.get(id.index())
    }

    /// The positions of the base-class fields leading from struct `from` to
    /// its base `to` (empty when they are the same), or `None` when `to` is
    /// not a base of `from`. Bases are the fields named by
    /// [`crate::base_field_name`].
    pub fn base_path(&self, from: StructId, to: StructId) -> Option<Vec<u32>> {
        self.base_path_depth(from, to, 0)
    }

    fn base_path_depth(&self, from: StructId, to: StructId, depth: u32) -> Option<Vec<u32>> {
        if from == to {
            return Some(Vec::new());
        }
        if depth > 64 {
            return None;
        }
        let def = self.get_struct(from)?;
        for (i, (name, ty)) in def.fields.iter().enumerate() {
            if let (true, crate::Type::Struct(base)) = (crate::is_base_field(name), ty)
                && let Some(mut rest) = self.base_path_depth(*base, to, depth + 1)
            {
                rest.insert(0, i as u32);
                return Some(rest);
            }
        }
        None
    }

    /// The global `id`; panics on an id from another program.
    pub fn global(&self, id: GlobalId) -> &Global {
        &self.globals[id.index()]
    }

    /// The global `id`, or `None` when the program has none.
    pub fn get_global(&self, id: GlobalId) -> Option<&Global> {
        self.globals.get(id.index())
    }

    /// Numbers the statements of every function ([`Function::number_statements`]).
    pub fn number_statements(&mut self) {
        for f in &mut self.functions {
            f.number_statements();
        }
    }
}

impl Function {
    /// The local `id`; panics on an id from another function.
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.index()]
    }

    /// The local `id`, or `None` when the function has none.
    pub fn get_local(&self, id: LocalId) -> Option<&Local> {
        self.locals.get(id.index())
    }

    /// The parameters: the first [`Function::params`] locals (fewer in a
    /// malformed function that lists fewer locals).
    pub fn param_locals(&self) -> &[Local] {
        &self.locals[..(self.params as usize).min(self.locals.len())]
    }

    /// True when `id` is a `tile_static` local of this function.
    pub fn is_tile_static(&self, id: LocalId) -> bool {
        self.get_local(id)
            .is_some_and(|l| l.space == Space::TileStatic)
    }

    /// Gives the body's statements their [`StmtId`]s, in program order, and
    /// sets [`Function::stmt_count`]. Numbering again gives the same ids.
    pub fn number_statements(&mut self) {
        let mut next = 0u32;
        if let Some(body) = &mut self.body {
            visit::for_each_stmt_mut(body, &mut |s| {
                s.id = StmtId(next);
                next += 1;
            });
        }
        self.stmt_count = next;
    }
}
