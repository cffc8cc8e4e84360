//! `<algorithm>` and `<numeric>` on vector ranges.

use crate::machine::{Machine, Res};
use crate::value::Value;
use tessera_ir::{Algo, Expr};

impl Machine<'_> {
    /// Runs an algorithm.
    pub(crate) fn algo(&mut self, _op: Algo, _args: &[Expr], _e: &Expr) -> Res<Value> {
        Ok(Value::Void)
    }
}
