//! `<random>`: engines and distributions, on the structs the checker makes
//! for them (see `tessera_sema`'s `library::random`), with libstdc++'s
//! numbers from `tessera_runtime::random`.
//!
//! An engine's state is taken out of its place for the draw and put back,
//! so the words are changed where they are (a Mersenne twister has 624 of
//! them) rather than copied at each number.

use crate::machine::{Machine, Res};
use crate::value::{Place, Value};
use std::rc::Rc;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Distribution, Expr, Intrinsic, RandomEngine, Scalar};
use tessera_runtime::random::{self, EngineState, NormalSaved};

/// An engine struct's fields, borrowed for a draw: `words`, `pos`. The
/// words are an aggregate as `RandomSeed` makes them, or a typed array
/// when the engine's struct was zero-initialised as any other.
struct Fields<'a>(&'a mut Vec<Value>);

impl EngineState for Fields<'_> {
    fn word(&self, i: usize) -> u64 {
        self.0
            .first()
            .and_then(|w| w.part(i))
            .map_or(0, |v| v.int() as u64)
    }

    fn set_word(&mut self, i: usize, v: u64) {
        if let Some(words) = self.0.first_mut() {
            crate::value::write_path(words, &[i as u32], Value::Int(v as i64));
        }
    }

    fn pos(&self) -> usize {
        self.0
            .get(1)
            .map_or(0, |v| usize::try_from(v.int()).unwrap_or(0))
    }

    fn set_pos(&mut self, p: usize) {
        if let Some(slot) = self.0.get_mut(1) {
            *slot = Value::Int(p as i64);
        }
    }
}

/// How many numbers `discard` draws between looks at the time limit.
const DISCARD_CHUNK: u64 = 1 << 16;

impl Machine<'_> {
    /// Runs a `<random>` intrinsic.
    pub(crate) fn random(&mut self, op: &Intrinsic, args: &[Expr], span: Span) -> Res<Value> {
        match op {
            Intrinsic::RandomSeed(engine) => {
                let seed = self.eval(&args[0])?.int() as u64;
                let n = engine.state_words() as usize;
                let mut fields = vec![Value::Agg(Rc::new(vec![Value::Int(0); n])), Value::Int(0)];
                random::seed(*engine, &mut Fields(&mut fields), seed);
                Ok(Value::Agg(Rc::new(fields)))
            }
            Intrinsic::RandomNext(engine) => {
                let place = self.place(&args[0])?;
                let v = self.with_engine(&place, span, |st| random::next(*engine, st))?;
                Ok(Value::Int(v as i64))
            }
            Intrinsic::RandomDiscard(engine) => {
                let place = self.place(&args[0])?;
                let mut left = self.eval(&args[1])?.int() as u64;
                while left > 0 {
                    let chunk = left.min(DISCARD_CHUNK);
                    self.with_engine(&place, span, |st| {
                        for _ in 0..chunk {
                            random::next(*engine, st);
                        }
                    })?;
                    left -= chunk;
                    self.tick(span)?;
                }
                Ok(Value::Void)
            }
            Intrinsic::RandomDraw(dist, engine) => self.draw(*dist, *engine, args, span),
            Intrinsic::RandomDevice => Ok(Value::Int(i64::from(device_number()))),
            _ => Ok(Value::Void),
        }
    }

    /// Runs `f` on the engine at `place`, its state taken out for the time
    /// and written back.
    fn with_engine<R>(
        &mut self,
        place: &Place,
        span: Span,
        f: impl FnOnce(&mut Fields<'_>) -> R,
    ) -> Res<R> {
        let value = self.read(place, span)?;
        // Drop the place's reference so that the state is changed in place.
        self.write(place, Value::Void, span)?;
        let Value::Agg(mut fields) = value else {
            return Err(self.error(codes::R0007, span, "this `<random>` engine holds no state"));
        };
        let r = f(&mut Fields(Rc::make_mut(&mut fields)));
        self.write(place, Value::Agg(fields), span)?;
        Ok(r)
    }

    /// `dist(engine)`.
    fn draw(
        &mut self,
        dist: Distribution,
        engine: RandomEngine,
        args: &[Expr],
        span: Span,
    ) -> Res<Value> {
        let dist_place = self.place(&args[0])?;
        let engine_place = self.place(&args[1])?;
        let params = self.read(&dist_place, span)?;
        let Value::Agg(params) = params else {
            return Err(self.error(
                codes::R0007,
                span,
                "this `<random>` distribution holds no parameters",
            ));
        };
        let param = |i: usize| params.get(i).cloned().unwrap_or(Value::Int(0));
        match dist {
            Distribution::UniformInt(t) => {
                let (a, b) = (param(0).int() as u64, param(1).int() as u64);
                let bits = self.with_engine(&engine_place, span, |st| {
                    random::uniform_int(engine, st, a, b)
                })?;
                Ok(Value::Int(crate::arith::wrap(i128::from(bits as i64), t)))
            }
            Distribution::UniformReal(Scalar::Float) => {
                let (a, b) = (float(&param(0)), float(&param(1)));
                let v = self.with_engine(&engine_place, span, |st| {
                    random::uniform_real_f32(engine, st, a, b)
                })?;
                Ok(Value::Float(v))
            }
            Distribution::UniformReal(_) => {
                let (a, b) = (double(&param(0)), double(&param(1)));
                let v = self.with_engine(&engine_place, span, |st| {
                    random::uniform_real_f64(engine, st, a, b)
                })?;
                Ok(Value::Double(v))
            }
            Distribution::Normal(Scalar::Float) => {
                let (mean, stddev) = (float(&param(0)), float(&param(1)));
                let mut saved = NormalSaved {
                    value: float(&param(2)),
                    available: param(3).truth(),
                };
                let v = self.with_engine(&engine_place, span, |st| {
                    random::normal_f32(engine, st, &mut saved, mean, stddev)
                })?;
                self.save_normal(
                    &dist_place,
                    Value::Float(saved.value),
                    saved.available,
                    span,
                )?;
                Ok(Value::Float(v))
            }
            Distribution::Normal(_) => {
                let (mean, stddev) = (double(&param(0)), double(&param(1)));
                let mut saved = NormalSaved {
                    value: double(&param(2)),
                    available: param(3).truth(),
                };
                let v = self.with_engine(&engine_place, span, |st| {
                    random::normal_f64(engine, st, &mut saved, mean, stddev)
                })?;
                self.save_normal(
                    &dist_place,
                    Value::Double(saved.value),
                    saved.available,
                    span,
                )?;
                Ok(Value::Double(v))
            }
            Distribution::Bernoulli => {
                let p = double(&param(0));
                let v =
                    self.with_engine(&engine_place, span, |st| random::bernoulli(engine, st, p))?;
                Ok(Value::Bool(v))
            }
        }
    }

    /// Stores a normal distribution's kept number and flag.
    fn save_normal(&mut self, dist: &Place, value: Value, available: bool, span: Span) -> Res<()> {
        self.write(&dist.clone().child(2), value, span)?;
        self.write(&dist.clone().child(3), Value::Bool(available), span)
    }
}

fn float(v: &Value) -> f32 {
    match v {
        Value::Float(f) => *f,
        other => crate::arith::as_f64(other) as f32,
    }
}

fn double(v: &Value) -> f64 {
    crate::arith::as_f64(v)
}

/// A number from the operating system's random source, as
/// `std::random_device` gives: the standard library's per-process random
/// hash keys (drawn from the operating system) mixed with a count, so each
/// call differs.
fn device_number() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(CALLS.fetch_add(1, Ordering::Relaxed));
    h.finish() as u32
}
