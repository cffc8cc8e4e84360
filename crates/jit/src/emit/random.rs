//! `<random>` in host code: an engine's next number and a distribution's
//! draw. Engines and distributions are plain structs (the checker's, see
//! `tessera_sema`'s `library::random`): the code passes their addresses
//! to the runtime (`exec::random_number`), which draws with libstdc++'s
//! algorithms from `tessera_runtime::random` on the engine's words in
//! place, as the interpreter does on its values.

use super::*;
use tessera_ir::{Distribution, RandomEngine};

/// What [`exec::random_number`](crate::exec) draws, as the code passes it:
/// the engine in bits 0-1, the distribution (0 for the engine's own
/// number) in bits 2-4, the distribution's type in bits 8-11.
pub(crate) fn random_code(engine: RandomEngine, dist: Option<Distribution>) -> Option<i64> {
    let e = match engine {
        RandomEngine::Mt19937 => 0,
        RandomEngine::Mt19937_64 => 1,
        RandomEngine::MinstdRand0 => 2,
        RandomEngine::MinstdRand => 3,
    };
    let (d, s) = match dist {
        None => (0, Scalar::ULong),
        Some(Distribution::UniformInt(s)) => (1, s),
        Some(Distribution::UniformReal(s)) => (2, s),
        Some(Distribution::Normal(s)) => (3, s),
        Some(Distribution::Bernoulli) => (4, Scalar::Double),
    };
    let s = RANDOM_SCALARS.iter().position(|x| *x == s)? as i64;
    Some(e | (d << 2) | (s << 8))
}

/// The types a distribution draws in compiled code, numbered as
/// [`random_code`] passes them.
pub(crate) const RANDOM_SCALARS: [Scalar; 6] = [
    Scalar::Int,
    Scalar::UInt,
    Scalar::Long,
    Scalar::ULong,
    Scalar::Float,
    Scalar::Double,
];

impl Emitter<'_, '_, '_> {
    /// `engine()` or `dist(engine)`: the number, of type `ty`.
    pub(super) fn random(
        &mut self,
        engine: RandomEngine,
        dist: Option<Distribution>,
        args: &[Expr],
        ty: &Type,
    ) -> R<V> {
        let refuse = || decline(Decline::LibraryOperation("Random".into()));
        let Some(helper) = self.entry.helpers.random else {
            return refuse();
        };
        let (engine_arg, dist_arg) = match (dist, args) {
            (None, [e]) => (e, None),
            (Some(_), [d, e]) => (e, Some(d)),
            _ => return refuse(),
        };
        // The structs must be laid out as the runtime reads them.
        if !self.engine_struct(&engine_arg.ty, engine)
            || dist_arg.is_some_and(|d| !dist.is_some_and(|k| self.dist_struct(&d.ty, k)))
        {
            return refuse();
        }
        let Some(code) = random_code(engine, dist) else {
            return refuse();
        };
        let state = match self.with_access(Access::ReadWrite, |lw| lw.place(engine_arg))? {
            Place::Mem(addr, _) => addr,
            _ => return refuse(),
        };
        let params = match dist_arg {
            Some(d) => match self.with_access(Access::ReadWrite, |lw| lw.place(d))? {
                Place::Mem(addr, _) => addr,
                _ => return refuse(),
            },
            None => self.b.ins().iconst(types::I64, 0),
        };
        let code = self.b.ins().iconst(types::I32, code);
        let call = self
            .b
            .ins()
            .call(helper, &[self.entry.env, code, state, params]);
        let bits = self.b.inst_results(call)[0];
        // The number's bits are laid out as an argument word's.
        let s = self.scalar_ty(ty)?;
        Ok(V::S(self.scalar_of_word(bits, s)))
    }

    /// Whether `ty` is `engine`'s struct: its words, then its position.
    fn engine_struct(&self, ty: &Type, engine: RandomEngine) -> bool {
        let Type::Struct(id) = ty else {
            return false;
        };
        let words = Type::CArray(Box::new(Type::Scalar(Scalar::ULong)), engine.state_words());
        self.prog.get_struct(*id).is_some_and(|d| {
            !d.is_union
                && d.fields.len() == 2
                && d.fields[0].1 == words
                && d.fields[1].1 == Type::Scalar(Scalar::Long)
        })
    }

    /// Whether `ty` is the struct of distribution `dist`: its parameters
    /// (and a normal distribution's kept number and flag), in order.
    fn dist_struct(&self, ty: &Type, dist: Distribution) -> bool {
        let Type::Struct(id) = ty else {
            return false;
        };
        let want: Vec<Type> = match dist {
            Distribution::UniformInt(s) | Distribution::UniformReal(s) => {
                vec![Type::Scalar(s); 2]
            }
            Distribution::Normal(s) => vec![
                Type::Scalar(s),
                Type::Scalar(s),
                Type::Scalar(s),
                Type::BOOL,
            ],
            Distribution::Bernoulli => vec![Type::Scalar(Scalar::Double)],
        };
        self.prog.get_struct(*id).is_some_and(|d| {
            !d.is_union
                && d.fields.len() == want.len()
                && d.fields.iter().zip(&want).all(|((_, t), w)| t == w)
        })
    }
}
