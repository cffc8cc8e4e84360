//! `<algorithm>`/`<numeric>` over a range of a `std::vector`, and
//! `std::swap`.

use crate::arith;
use crate::machine::POLL_CHUNK;
use crate::machine::{Machine, Res};
use crate::value::{Storage, StorageKind, Value};
use std::cmp::Ordering;
use std::rc::Rc;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Algo, BinOp, Expr, Scalar, Type};

/// The scalar element type of a vector type (`int` for anything else, which
/// the checker does not let through to the comparing algorithms).
fn elem_scalar(ty: &Type) -> Scalar {
    match ty {
        Type::Vector(e) | Type::Container(_, e) | Type::Ptr { elem: e, .. } => {
            e.scalar().unwrap_or(Scalar::Int)
        }
        _ => Scalar::Int,
    }
}

/// C++'s `<` on two elements as an ordering; `NaN` is put in a total order
/// so that sorting stays defined (C++ leaves such a sort undefined).
fn order(a: &Value, b: &Value, s: Scalar) -> Ordering {
    match s {
        Scalar::Float | Scalar::Double => arith::as_f64(a).total_cmp(&arith::as_f64(b)),
        Scalar::ULong => (a.int() as u64).cmp(&(b.int() as u64)),
        _ => a.int().cmp(&b.int()),
    }
}

/// C++'s `==` on two elements.
fn equal(a: &Value, b: &Value, s: Scalar) -> bool {
    match s {
        Scalar::Float | Scalar::Double => arith::as_f64(a) == arith::as_f64(b),
        _ => a.int() == b.int(),
    }
}

impl Machine<'_> {
    /// The storage of a range's first argument: a vector's own, or for a
    /// pointer (`std::sort(a, a + n)`) a copy of the first `len` elements
    /// it points to (each read checked), with the pointer to write them
    /// back through. `gather` false leaves the copy's elements zero, for a
    /// destination that is only written.
    fn range_storage(
        &mut self,
        e: &Expr,
        value: Value,
        len: i64,
        gather: bool,
    ) -> Res<(Rc<Storage>, Option<Value>)> {
        match value {
            Value::Vector(s) => {
                if self.checker.on && !self.in_kernel {
                    self.check_host_access(&s, e.span);
                }
                Ok((s, None))
            }
            p @ Value::Ptr(_) => {
                let elem = match &e.ty {
                    Type::Ptr { elem, .. } => (**elem).clone(),
                    _ => Type::Scalar(Scalar::Int),
                };
                if len < 0 {
                    return Err(self.error(
                        codes::R0001,
                        e.span,
                        "a pointer range that ends before it starts",
                    ));
                }
                let data = if gather {
                    self.read_pointed(&p, len, e.span)?
                } else {
                    // Only written: zeros, once the range's end is checked
                    // to lie in the allocation (which bounds `len`).
                    self.ptr_add(&p, len, e.span)?;
                    let zero = self.zero_value(&elem, e.span)?;
                    vec![zero; len as usize]
                };
                let storage = self.storage_of(data, &elem, StorageKind::Vector, e.span)?;
                Ok((storage, Some(p)))
            }
            _ => Err(self.error(codes::R0007, e.span, "this is not a vector")),
        }
    }

    /// Writes elements `[lo, hi)` of a gathered copy back through the
    /// pointer it came from.
    fn write_back(
        &mut self,
        storage: &Storage,
        ptr: &Value,
        lo: usize,
        hi: usize,
        span: Span,
    ) -> Res<()> {
        let values: Vec<Value> = storage.values(lo, hi);
        self.write_pointed(ptr, lo as i64, values, span)
    }

    /// `[lo, hi)` checked against a vector of `n` elements.
    fn checked_range(&self, lo: i64, hi: i64, n: usize, span: Span) -> Res<(usize, usize)> {
        if lo < 0 || hi < lo || hi as u64 > n as u64 {
            return Err(self
                .error(
                    codes::R0001,
                    span,
                    format!(
                        "the iterator range [{lo}, {hi}) is outside a `std::vector` of size {n}"
                    ),
                )
                .with_label("this range")
                .with_note(format!(
                    "a range runs from `v.begin() + i` to `v.begin() + j` with 0 <= i <= j <= {n}"
                ))
                .into());
        }
        Ok((lo as usize, hi as usize))
    }

    /// Runs an algorithm: args `[vector, lo, hi, ...]`.
    pub(crate) fn algorithm(&mut self, algo: Algo, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        let first = self.eval(&args[0])?;
        let lo = self.eval(&args[1])?.int();
        // Over pointers, the third argument is the end pointer.
        let hi = match self.eval(&args[2])? {
            end @ Value::Ptr(_) => self.ptr_diff(&end, &first, span)?.int(),
            hi => hi.int(),
        };
        let (storage, through) = self.range_storage(&args[0], first, hi, true)?;
        let (lo, hi) = self.checked_range(lo, hi, storage.len(), span)?;
        let result = self.run_algorithm(algo, args, &storage, lo, hi, span)?;
        if let Some(ptr) = through
            && matches!(
                algo,
                Algo::Fill | Algo::Iota | Algo::Sort { .. } | Algo::Reverse
            )
        {
            self.write_back(&storage, &ptr, lo, hi, span)?;
        }
        Ok(result)
    }

    /// [`Machine::algorithm`] on the range's storage.
    fn run_algorithm(
        &mut self,
        algo: Algo,
        args: &[Expr],
        storage: &Rc<Storage>,
        lo: usize,
        hi: usize,
        span: Span,
    ) -> Res<Value> {
        let s = elem_scalar(&args[0].ty);
        // `sort` is n log n; the others are linear.
        let n = (hi - lo) as u64;
        self.charge(n / 8 + n.max(2).ilog2() as u64 * n / 16, span)?;
        match algo {
            Algo::Fill => {
                let v = self.eval(&args[3])?;
                for start in (lo..hi).step_by(POLL_CHUNK) {
                    let end = (start + POLL_CHUNK).min(hi);
                    storage.fill(start, end, &v);
                    self.poll(span)?;
                }
                Ok(Value::Void)
            }
            Algo::Iota => {
                let t = args[3].ty.scalar().unwrap_or(Scalar::Int);
                let mut v = self.eval(&args[3])?;
                let one = arith::convert(&Value::Int(1), Scalar::Int, t)
                    .map_err(|err| self.arith_error(err, t, span))?;
                for start in (lo..hi).step_by(POLL_CHUNK) {
                    let end = (start + POLL_CHUNK).min(hi);
                    for k in start..end {
                        let x = arith::convert(&v, t, s)
                            .map_err(|err| self.arith_error(err, s, span))?;
                        storage.set(k, x);
                        if k + 1 < hi {
                            v = arith::binary(BinOp::Add, t, &v, &one, t)
                                .map_err(|err| self.arith_error(err, t, span))?;
                        }
                    }
                    self.poll(span)?;
                }
                Ok(Value::Void)
            }
            Algo::Accumulate(common) => {
                let t = args[3].ty.scalar().unwrap_or(Scalar::Int);
                let mut acc = self.eval(&args[3])?;
                let items: Vec<Value> = storage.values(lo, hi);
                for x in &items {
                    let fail = |m: &Self, err| m.arith_error(err, common, span);
                    let a = arith::convert(&acc, t, common).map_err(|err| fail(self, err))?;
                    let b = arith::convert(x, s, common).map_err(|err| fail(self, err))?;
                    let r = arith::binary(BinOp::Add, common, &a, &b, common)
                        .map_err(|err| fail(self, err))?;
                    acc = arith::convert(&r, common, t)
                        .map_err(|err| self.arith_error(err, t, span))?;
                }
                Ok(acc)
            }
            Algo::Sort { greater } => {
                if storage.scalar() == Some(s) && storage.sort_scalars(lo, hi, greater) {
                    return Ok(Value::Void);
                }
                // Sorted as values and stored back: n conversions beside
                // the n log n comparisons.
                let mut range = storage.values(lo, hi);
                range.sort_by(|a, b| order(a, b, s));
                if greater {
                    range.reverse();
                }
                storage.put_values(lo, &range);
                Ok(Value::Void)
            }
            Algo::Reverse => {
                storage.reverse(lo, hi);
                Ok(Value::Void)
            }
            Algo::MinMaxElement { max } => {
                let data = storage.values(lo, hi);
                let mut best = 0;
                for k in 0..data.len() {
                    let o = order(&data[k], &data[best], s);
                    if (max && o == Ordering::Greater) || (!max && o == Ordering::Less) {
                        best = k;
                    }
                }
                Ok(Value::Int(if lo == hi { hi } else { lo + best } as i64))
            }
            Algo::Count => {
                let v = self.eval(&args[3])?;
                let n = storage
                    .values(lo, hi)
                    .iter()
                    .filter(|x| equal(x, &v, s))
                    .count();
                Ok(Value::Int(n as i64))
            }
            Algo::Predicate { count } => {
                // The predicate may change the range: each element is read
                // when its turn comes, within the range as it is then.
                self.eval(&args[3])?;
                let place = self.place(&args[4])?;
                let mut hits = 0i64;
                for k in lo..hi {
                    let Some(x) = storage.element(k) else {
                        break;
                    };
                    self.write(&place, x, span)?;
                    if self.eval(&args[5])?.truth() {
                        if !count {
                            return Ok(Value::Int(k as i64));
                        }
                        hits += 1;
                    }
                }
                Ok(Value::Int(if count { hits } else { hi as i64 }))
            }
            Algo::Equal | Algo::Copy => {
                let lo2 = self.eval(&args[4])?.int();
                let hi2 = lo2.saturating_add((hi - lo) as i64);
                let second = self.eval(&args[3])?;
                let (other, through) =
                    self.range_storage(&args[3], second, hi2, algo == Algo::Equal)?;
                let (lo2, hi2) = self.checked_range(lo2, hi2, other.len(), args[4].span)?;
                let items: Vec<Value> = storage.values(lo, hi);
                if algo == Algo::Equal {
                    let same = other
                        .values(lo2, hi2)
                        .iter()
                        .zip(&items)
                        .all(|(a, b)| equal(a, b, s));
                    return Ok(Value::Bool(same));
                }
                other.put_values(lo2, &items);
                if let Some(ptr) = through {
                    self.write_back(&other, &ptr, lo2, hi2, span)?;
                }
                Ok(Value::Void)
            }
        }
    }

    /// `std::swap(a, b)`.
    pub(crate) fn swap(&mut self, args: &[Expr], span: Span) -> Res<Value> {
        let pa = self.place(&args[0])?;
        let pb = self.place(&args[1])?;
        let a = self.read(&pa, span)?;
        let b = self.read(&pb, span)?;
        self.write(&pa, b, span)?;
        self.write(&pb, a, span)?;
        Ok(Value::Void)
    }
}
