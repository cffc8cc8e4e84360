//! The engines and distributions of `<random>`, giving exactly libstdc++'s
//! numbers (GCC 12), so that a program prints what it prints under g++.
//!
//! - `mt19937`/`mt19937_64`: the Mersenne twisters with the standard's
//!   parameters, seeded by the standard's initialisation (default seed
//!   5489); a number is the next state word, tempered.
//! - `minstd_rand0`/`minstd_rand`: `x = a * x mod (2^31 - 1)` with `a` 16807
//!   or 48271; a seed that is 0 modulo the modulus seeds 1.
//! - `uniform_int_distribution`: libstdc++ computes in the common unsigned
//!   type of the engine's result (`unsigned long`) and the distribution's
//!   type. An engine whose range is exactly 32 (64) bits draws by Lemire's
//!   multiply-and-reject method in 64 (128) bits; another divides its
//!   range into equal buckets and rejects the rest; a range wider than the
//!   engine's is built from several draws.
//! - The real distributions draw `generate_canonical`: `k` numbers of the
//!   engine (as many as the type's digits need, one or two) summed in the
//!   type as digits of base `max - min + 1`, divided by that base to the
//!   `k`, and kept below 1. `uniform_real_distribution` scales that to
//!   `[a, b)`; `normal_distribution` uses Marsaglia's polar method, which
//!   makes two numbers at a time and keeps the second for the next call;
//!   `bernoulli_distribution` is `canonical < p`. Each step is done in the
//!   distribution's type (`float` arithmetic for `float`), as the library's
//!   templates do.

use tessera_ir::RandomEngine;

/// An engine's state, wherever the caller keeps it: its words (as
/// `unsigned long`) and position.
pub trait EngineState {
    /// Word `i`.
    fn word(&self, i: usize) -> u64;
    /// Sets word `i`.
    fn set_word(&mut self, i: usize, v: u64);
    /// The position of the next word (the twisters).
    fn pos(&self) -> usize;
    /// Sets the position.
    fn set_pos(&mut self, p: usize);
}

/// The parameters of a Mersenne twister.
struct Twister {
    w: u32,
    n: usize,
    m: usize,
    r: u32,
    a: u64,
    u: u32,
    d: u64,
    s: u32,
    b: u64,
    t: u32,
    c: u64,
    l: u32,
    f: u64,
}

const MT32: Twister = Twister {
    w: 32,
    n: 624,
    m: 397,
    r: 31,
    a: 0x9908_b0df,
    u: 11,
    d: 0xffff_ffff,
    s: 7,
    b: 0x9d2c_5680,
    t: 15,
    c: 0xefc6_0000,
    l: 18,
    f: 1_812_433_253,
};

const MT64: Twister = Twister {
    w: 64,
    n: 312,
    m: 156,
    r: 31,
    a: 0xb502_6f5a_a966_19e9,
    u: 29,
    d: 0x5555_5555_5555_5555,
    s: 17,
    b: 0x71d6_7fff_eda6_0000,
    t: 37,
    c: 0xfff7_eee0_0000_0000,
    l: 43,
    f: 6_364_136_223_846_793_005,
};

/// The modulus of the minimal standard generators.
const MINSTD_MODULUS: u64 = 2_147_483_647;

impl Twister {
    fn mask(&self) -> u64 {
        if self.w == 64 {
            u64::MAX
        } else {
            (1u64 << self.w) - 1
        }
    }

    fn seed(&self, st: &mut dyn EngineState, seed: u64) {
        let mask = self.mask();
        let mut x = seed & mask;
        st.set_word(0, x);
        for i in 1..self.n {
            x = (self
                .f
                .wrapping_mul(x ^ (x >> (self.w - 2)))
                .wrapping_add(i as u64))
                & mask;
            st.set_word(i, x);
        }
        st.set_pos(self.n);
    }

    /// The next `n` words of state, all at once (the "twist").
    fn twist(&self, st: &mut dyn EngineState) {
        let mask = self.mask();
        let upper = (!0u64 << self.r) & mask;
        let lower = !upper & mask;
        for k in 0..self.n {
            let y = (st.word(k) & upper) | (st.word((k + 1) % self.n) & lower);
            let mut next = st.word((k + self.m) % self.n) ^ (y >> 1);
            if y & 1 != 0 {
                next ^= self.a;
            }
            st.set_word(k, next);
        }
        st.set_pos(0);
    }

    fn next(&self, st: &mut dyn EngineState) -> u64 {
        if st.pos() >= self.n {
            self.twist(st);
        }
        let p = st.pos();
        let mut z = st.word(p);
        st.set_pos(p + 1);
        let mask = self.mask();
        z ^= (z >> self.u) & self.d;
        z ^= (z << self.s) & self.b & mask;
        z ^= (z << self.t) & self.c & mask;
        z ^= z >> self.l;
        z
    }
}

fn multiplier(engine: RandomEngine) -> u64 {
    match engine {
        RandomEngine::MinstdRand => 48_271,
        _ => 16_807,
    }
}

/// Seeds `engine` with `seed`, as its `seed(s)` (and constructor) does.
pub fn seed(engine: RandomEngine, st: &mut dyn EngineState, seed: u64) {
    match engine {
        RandomEngine::Mt19937 => MT32.seed(st, seed),
        RandomEngine::Mt19937_64 => MT64.seed(st, seed),
        RandomEngine::MinstdRand0 | RandomEngine::MinstdRand => {
            let x = seed % MINSTD_MODULUS;
            st.set_word(0, if x == 0 { 1 } else { x });
        }
    }
}

/// The engine's next number.
pub fn next(engine: RandomEngine, st: &mut dyn EngineState) -> u64 {
    match engine {
        RandomEngine::Mt19937 => MT32.next(st),
        RandomEngine::Mt19937_64 => MT64.next(st),
        RandomEngine::MinstdRand0 | RandomEngine::MinstdRand => {
            let x = (multiplier(engine) * st.word(0)) % MINSTD_MODULUS;
            st.set_word(0, x);
            x
        }
    }
}

/// `uniform_int_distribution` over `[a, b]`, both given as the common
/// unsigned type's bit patterns (`(unsigned long) a`): the result's bit
/// pattern in that type, which the caller converts to the distribution's
/// type.
pub fn uniform_int(engine: RandomEngine, st: &mut dyn EngineState, a: u64, b: u64) -> u64 {
    below_or_at(engine, st, b.wrapping_sub(a)).wrapping_add(a)
}

/// A number in `[0, urange]`.
fn below_or_at(engine: RandomEngine, st: &mut dyn EngineState, urange: u64) -> u64 {
    let (min, max) = (engine.min(), engine.max());
    let urngrange = max - min;
    if urngrange > urange {
        let uerange = urange + 1;
        if urngrange == u64::MAX {
            // 64-bit engine: Lemire's method in 128 bits.
            let range = u128::from(uerange);
            let mut product = u128::from(next(engine, st)) * range;
            let mut low = product as u64;
            if low < uerange {
                let threshold = uerange.wrapping_neg() % uerange;
                while low < threshold {
                    product = u128::from(next(engine, st)) * range;
                    low = product as u64;
                }
            }
            (product >> 64) as u64
        } else if urngrange == u64::from(u32::MAX) {
            // 32-bit engine: Lemire's method in 64 bits.
            let range = uerange as u32;
            let mut product = next(engine, st) * u64::from(range);
            let mut low = product as u32;
            if low < range {
                let threshold = range.wrapping_neg() % range;
                while low < threshold {
                    product = next(engine, st) * u64::from(range);
                    low = product as u32;
                }
            }
            product >> 32
        } else {
            let scaling = urngrange / uerange;
            let past = uerange * scaling;
            loop {
                let ret = next(engine, st).wrapping_sub(min);
                if ret < past {
                    return ret / scaling;
                }
            }
        }
    } else if urngrange < urange {
        // Wider than the engine: a high part in units of the engine's
        // range plus one more draw, again until it lands in the range
        // without wrapping.
        let uerngrange = urngrange + 1;
        loop {
            let tmp = uerngrange.wrapping_mul(below_or_at(engine, st, urange / uerngrange));
            let ret = tmp.wrapping_add(next(engine, st).wrapping_sub(min));
            if !(ret > urange || ret < tmp) {
                return ret;
            }
        }
    } else {
        next(engine, st).wrapping_sub(min)
    }
}

/// How many numbers of `engine` `generate_canonical` sums for a type with
/// `digits` binary digits: enough for the digits, at least one.
fn canonical_draws(engine: RandomEngine, digits: u32) -> u32 {
    let base = u128::from(engine.max() - engine.min()) + 1;
    let log2 = 127 - base.leading_zeros();
    digits.div_ceil(log2).max(1)
}

/// `generate_canonical<double, 53>`: a `double` in `[0, 1)`.
pub fn canonical_f64(engine: RandomEngine, st: &mut dyn EngineState) -> f64 {
    let base = u128::from(engine.max() - engine.min()) + 1;
    let mut sum = 0.0f64;
    let mut scale: u128 = 1;
    for _ in 0..canonical_draws(engine, 53) {
        let x = next(engine, st).wrapping_sub(engine.min());
        sum += x as f64 * scale as f64;
        scale = scale.saturating_mul(base);
    }
    let r = sum / scale as f64;
    if r >= 1.0 {
        1.0 - f64::EPSILON / 2.0
    } else {
        r
    }
}

/// `generate_canonical<float, 24>`: a `float` in `[0, 1)`.
pub fn canonical_f32(engine: RandomEngine, st: &mut dyn EngineState) -> f32 {
    let base = u128::from(engine.max() - engine.min()) + 1;
    let mut sum = 0.0f32;
    let mut scale: u128 = 1;
    for _ in 0..canonical_draws(engine, 24) {
        let x = next(engine, st).wrapping_sub(engine.min());
        sum += x as f32 * scale as f32;
        scale = scale.saturating_mul(base);
    }
    let r = sum / scale as f32;
    if r >= 1.0 {
        1.0 - f32::EPSILON / 2.0
    } else {
        r
    }
}

/// `uniform_real_distribution<double>(a, b)`.
pub fn uniform_real_f64(engine: RandomEngine, st: &mut dyn EngineState, a: f64, b: f64) -> f64 {
    canonical_f64(engine, st) * (b - a) + a
}

/// `uniform_real_distribution<float>(a, b)`.
pub fn uniform_real_f32(engine: RandomEngine, st: &mut dyn EngineState, a: f32, b: f32) -> f32 {
    canonical_f32(engine, st) * (b - a) + a
}

/// The state a normal distribution keeps between calls: the second number
/// of the last pair, if not yet returned.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NormalSaved<T> {
    /// The number kept.
    pub value: T,
    /// Whether it is still to be returned.
    pub available: bool,
}

/// `normal_distribution<double>(mean, stddev)`.
pub fn normal_f64(
    engine: RandomEngine,
    st: &mut dyn EngineState,
    saved: &mut NormalSaved<f64>,
    mean: f64,
    stddev: f64,
) -> f64 {
    let z = if saved.available {
        saved.available = false;
        saved.value
    } else {
        let (x, y, r2) = loop {
            let x = 2.0 * canonical_f64(engine, st) - 1.0;
            let y = 2.0 * canonical_f64(engine, st) - 1.0;
            let r2 = x * x + y * y;
            if !(r2 > 1.0 || r2 == 0.0) {
                break (x, y, r2);
            }
        };
        let mult = (-2.0 * r2.ln() / r2).sqrt();
        saved.value = x * mult;
        saved.available = true;
        y * mult
    };
    z * stddev + mean
}

/// `normal_distribution<float>(mean, stddev)`: each step in `float`, the
/// `- 1.0` in `double` (a `double` literal) and rounded back.
pub fn normal_f32(
    engine: RandomEngine,
    st: &mut dyn EngineState,
    saved: &mut NormalSaved<f32>,
    mean: f32,
    stddev: f32,
) -> f32 {
    let z = if saved.available {
        saved.available = false;
        saved.value
    } else {
        let (x, y, r2) = loop {
            let x = (f64::from(2.0f32 * canonical_f32(engine, st)) - 1.0) as f32;
            let y = (f64::from(2.0f32 * canonical_f32(engine, st)) - 1.0) as f32;
            let r2 = x * x + y * y;
            if !(f64::from(r2) > 1.0 || r2 == 0.0) {
                break (x, y, r2);
            }
        };
        let mult = (-2.0f32 * r2.ln() / r2).sqrt();
        saved.value = x * mult;
        saved.available = true;
        y * mult
    };
    z * stddev + mean
}

/// `bernoulli_distribution(p)`.
pub fn bernoulli(engine: RandomEngine, st: &mut dyn EngineState, p: f64) -> bool {
    canonical_f64(engine, st) < p
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Words(Vec<u64>, usize);

    impl EngineState for Words {
        fn word(&self, i: usize) -> u64 {
            self.0[i]
        }
        fn set_word(&mut self, i: usize, v: u64) {
            self.0[i] = v;
        }
        fn pos(&self) -> usize {
            self.1
        }
        fn set_pos(&mut self, p: usize) {
            self.1 = p;
        }
    }

    fn engine(e: RandomEngine) -> Words {
        let mut w = Words(vec![0; e.state_words() as usize], 0);
        seed(e, &mut w, e.default_seed());
        w
    }

    #[test]
    fn ten_thousandth_numbers_are_the_standards() {
        // The standard requires these of a default-constructed engine.
        for (e, want) in [
            (RandomEngine::Mt19937, 4_123_659_995),
            (RandomEngine::Mt19937_64, 9_981_545_732_273_789_042),
            (RandomEngine::MinstdRand0, 1_043_618_065),
            (RandomEngine::MinstdRand, 399_268_537),
        ] {
            let mut w = engine(e);
            for _ in 0..9999 {
                next(e, &mut w);
            }
            assert_eq!(next(e, &mut w), want, "{e:?}");
        }
    }
}
