//! The iteration order of `std::unordered_set` and `std::unordered_multiset`
//! as libstdc++ (the oracle's library) gives it.
//!
//! libstdc++ keeps every element in one singly linked list in which the
//! elements of a bucket are adjacent; iteration walks that list. A new
//! element goes to the front of its bucket's run, or, in an empty bucket,
//! to the front of the whole list; a multiset's new element goes just
//! before the first element equal to it. Before an insertion that would
//! pass one element per bucket the table grows to a prime number of
//! buckets (`_Prime_rehash_policy`: at least double, 13 at the first
//! insertion), relinking the list in its order: each element to the front
//! of its bucket's run or of the list, a multiset's run of equal elements
//! kept in order. The hash of an integer is its value; of a floating-point
//! number, libstdc++'s `_Hash_bytes` of its bytes (0 for zero). The bucket
//! is the hash modulo the bucket count.
//!
//! A container holds its elements in this order (see the checker's
//! `stdcont`), so this module only decides where an element goes and how
//! a rehash reorders them; the bucket count lives with the storage.

use crate::value::Value;
use tessera_ir::Scalar;

/// The bucket counts `_M_next_bkt` chooses from for 14 or more buckets.
const PRIMES: &[u64] = &[
    17,
    19,
    23,
    29,
    31,
    37,
    41,
    43,
    47,
    53,
    59,
    61,
    67,
    71,
    73,
    79,
    83,
    89,
    97,
    103,
    109,
    113,
    127,
    137,
    139,
    149,
    157,
    167,
    179,
    193,
    199,
    211,
    227,
    241,
    257,
    277,
    293,
    313,
    337,
    359,
    383,
    409,
    439,
    467,
    503,
    541,
    577,
    619,
    661,
    709,
    761,
    823,
    887,
    953,
    1031,
    1109,
    1193,
    1289,
    1381,
    1493,
    1613,
    1741,
    1879,
    2029,
    2179,
    2357,
    2549,
    2753,
    2971,
    3209,
    3469,
    3739,
    4027,
    4349,
    4703,
    5087,
    5503,
    5953,
    6427,
    6949,
    7517,
    8123,
    8783,
    9497,
    10273,
    11113,
    12011,
    12983,
    14033,
    15173,
    16411,
    17749,
    19183,
    20753,
    22447,
    24281,
    26267,
    28411,
    30727,
    33223,
    35933,
    38873,
    42043,
    45481,
    49201,
    53201,
    57557,
    62233,
    67307,
    72817,
    78779,
    85229,
    92203,
    99733,
    107897,
    116731,
    126271,
    136607,
    147793,
    159871,
    172933,
    187091,
    202409,
    218971,
    236897,
    256279,
    277261,
    299951,
    324503,
    351061,
    379787,
    410857,
    444487,
    480881,
    520241,
    562841,
    608903,
    658753,
    712697,
    771049,
    834181,
    902483,
    976369,
    1056323,
    1142821,
    1236397,
    1337629,
    1447153,
    1565659,
    1693859,
    1832561,
    1982627,
    2144977,
    2320627,
    2510653,
    2716249,
    2938679,
    3179303,
    3439651,
    3721303,
    4026031,
    4355707,
    4712381,
    5098259,
    5515729,
    5967347,
    6456007,
    6984629,
    7556579,
    8175383,
    8844859,
    9569143,
    10352717,
    11200489,
    12117689,
    13109983,
    14183539,
    15345007,
    16601593,
    17961079,
    19431899,
    21023161,
    22744717,
    24607243,
    26622317,
    28802401,
    31160981,
    33712729,
    36473443,
    39460231,
    42691603,
    46187573,
    49969847,
    54061849,
    58488943,
    63278561,
    68460391,
    74066549,
    80131819,
    86693767,
    93793069,
    101473717,
    109783337,
    118773397,
    128499677,
    139022417,
    150406843,
    162723577,
    176048909,
    190465427,
    206062531,
    222936881,
    241193053,
    260944219,
    282312799,
    305431229,
    330442829,
    357502601,
    386778277,
    418451333,
    452718089,
    489790921,
    529899637,
    573292817,
    620239453,
    671030513,
    725980837,
    785430967,
    849749479,
    919334987,
    994618837,
    1076067617,
    1164186217,
    1259520799,
    1362662261,
    1474249943,
    1594975441,
    1725587117,
    1866894511,
    2019773507,
    2185171673,
    2364114217,
    2557710269,
    2767159799,
    2993761039,
    3238918481,
    3504151727,
    3791104843,
    4101556399,
    4294967291,
    6442450933,
    8589934583,
    12884901857,
    17179869143,
    25769803693,
    34359738337,
    51539607367,
    68719476731,
    103079215087,
    137438953447,
    206158430123,
    274877906899,
    412316860387,
    549755813881,
    824633720731,
    1099511627689,
    1649267441579,
    2199023255531,
    3298534883309,
    4398046511093,
    6597069766607,
    8796093022151,
    13194139533241,
    17592186044399,
    26388279066581,
    35184372088777,
    52776558133177,
    70368744177643,
    105553116266399,
    140737488355213,
    211106232532861,
    281474976710597,
    562949953421231,
    1125899906842597,
    2251799813685119,
    4503599627370449,
    9007199254740881,
    18014398509481951,
    36028797018963913,
    72057594037927931,
    144115188075855859,
    288230376151711717,
    576460752303423433,
    1152921504606846883,
    2305843009213693951,
    4611686018427387847,
    9223372036854775783,
    18446744073709551557,
];

/// `_M_next_bkt` below 14 buckets.
const FAST: [u64; 14] = [2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13];

/// The bucket count the rehash policy picks for at least `n` buckets (1
/// for 0: nothing allocated).
fn next_bucket_count(n: u64) -> u64 {
    if n == 0 {
        return 1;
    }
    if let Some(&b) = FAST.get(n as usize) {
        return b;
    }
    let at = PRIMES.partition_point(|&p| p < n);
    PRIMES.get(at).copied().unwrap_or(u64::MAX)
}

/// The bucket count before `count + 1` elements are held in `buckets`:
/// the same, or the one a rehash moves to (`_M_need_rehash` with a
/// maximum load factor of 1, whose next resize point is the bucket count
/// once anything is allocated).
fn grown(buckets: u64, count: u64) -> u64 {
    let next_resize = if buckets <= 1 { 0 } else { buckets };
    if count < next_resize {
        return buckets;
    }
    let min = if next_resize == 0 {
        (count + 1).max(11)
    } else {
        count + 1
    };
    if min >= buckets {
        next_bucket_count((min + 1).max(buckets.saturating_mul(2)))
    } else {
        buckets
    }
}

/// The bucket count a multiset built from a range of `n` elements starts
/// with (the range constructor sizes the table first).
pub(crate) fn presized(n: u64) -> u64 {
    next_bucket_count(n)
}

/// `std::hash` of an element.
fn hash(v: &Value, s: Scalar) -> u64 {
    const SEED: u64 = 0xc70f_6907;
    match (v, s) {
        (Value::Float(f), _) if *f == 0.0 => 0,
        (Value::Float(f), _) => hash_bytes(&f.to_le_bytes(), SEED),
        (Value::Double(d), _) if *d == 0.0 => 0,
        (Value::Double(d), _) => hash_bytes(&d.to_le_bytes(), SEED),
        (Value::Bool(b), _) => u64::from(*b),
        // Signed values convert to `size_t` by sign extension, which the
        // stored `i64` already is; unsigned ones are stored zero-extended.
        (Value::Int(i), _) => *i as u64,
        _ => 0,
    }
}

fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

/// libstdc++'s `_Hash_bytes` for 64-bit `size_t`.
fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
    let mul: u64 = (0xc6a4_a793_u64 << 32) + 0x5bd1_e995;
    let len = bytes.len();
    let aligned = len & !7;
    let mut h = seed ^ (len as u64).wrapping_mul(mul);
    for chunk in bytes[..aligned].chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let data = shift_mix(u64::from_le_bytes(word).wrapping_mul(mul)).wrapping_mul(mul);
        h ^= data;
        h = h.wrapping_mul(mul);
    }
    if len & 7 != 0 {
        let data = bytes[aligned..]
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) + u64::from(b));
        h ^= data;
        h = h.wrapping_mul(mul);
    }
    h = shift_mix(h).wrapping_mul(mul);
    shift_mix(h)
}

/// Relinks `data` for `buckets` buckets in libstdc++'s rehash order.
fn rehash(data: Vec<Value>, buckets: u64, s: Scalar, multi: bool) -> (Vec<Value>, Vec<u32>) {
    // Each bucket's run of (old position, value); `runs` holds them back to
    // front (a new run goes to the front of the list, so it is pushed
    // last), `at` finds a bucket's.
    let mut runs: Vec<Vec<(usize, Value)>> = Vec::new();
    let mut at: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    // The previous element's bucket and its index in that run.
    let mut prev: Option<(u64, usize)> = None;
    for (old, v) in data.into_iter().enumerate() {
        let b = hash(&v, s) % buckets;
        let placed = match (prev, at.get(&b).copied()) {
            // A multiset keeps a run of equal elements in order: the next
            // one of the same bucket goes right after the previous one.
            (Some((pb, k)), Some(r)) if multi && pb == b => {
                runs[r].insert(k + 1, (old, v));
                (b, k + 1)
            }
            (_, Some(r)) => {
                runs[r].insert(0, (old, v));
                (b, 0)
            }
            (_, None) => {
                at.insert(b, runs.len());
                runs.push(vec![(old, v)]);
                (b, 0)
            }
        };
        prev = Some(placed);
    }
    let mut moved = Vec::new();
    let mut out = Vec::new();
    for (new, (old, v)) in runs.into_iter().rev().flatten().enumerate() {
        if moved.len() <= old {
            moved.resize(old + 1, 0);
        }
        moved[old] = u32::try_from(new).unwrap_or(u32::MAX);
        out.push(v);
    }
    (out, moved)
}

/// Where [`insert`] put a value.
pub(crate) struct Placed {
    /// The table grew first, and element `i` went to position `moved[i]`.
    pub(crate) moved: Option<Vec<u32>>,
    /// The new element's position (after the rehash).
    pub(crate) at: usize,
}

/// Inserts `v` into the elements of an unordered container (in iteration
/// order) with `buckets` buckets, as libstdc++ does; a set ignores a
/// value it holds (`equal` decides). Returns where it went, if it was
/// inserted.
pub(crate) fn insert(
    data: &mut Vec<Value>,
    buckets: &mut u64,
    v: Value,
    s: Scalar,
    multi: bool,
    equal: impl Fn(&Value, &Value) -> bool,
) -> Option<Placed> {
    if !multi && data.iter().any(|x| equal(x, &v)) {
        return None;
    }
    let count = data.len() as u64;
    let b = grown(*buckets, count);
    let mut moved = None;
    if b != *buckets {
        *buckets = b;
        let (rehashed, to) = rehash(std::mem::take(data), b, s, multi);
        *data = rehashed;
        moved = Some(to);
    }
    let bucket = hash(&v, s) % *buckets;
    let run_start = data.iter().position(|x| hash(x, s) % *buckets == bucket);
    let at = match run_start {
        None => 0,
        Some(start) => {
            // A multiset's value goes before the first equal one of its
            // bucket; otherwise to the front of the bucket.
            let equal_at = multi
                .then(|| {
                    data[start..]
                        .iter()
                        .take_while(|x| hash(x, s) % *buckets == bucket)
                        .position(|x| equal(x, &v))
                })
                .flatten();
            start + equal_at.unwrap_or(0)
        }
    };
    data.insert(at, v);
    Some(Placed { moved, at })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_counts_follow_the_prime_policy() {
        let mut b = 1;
        let mut seen = Vec::new();
        for count in 0..200 {
            let nb = grown(b, count);
            if nb != b {
                seen.push(nb);
                b = nb;
            }
        }
        assert_eq!(seen, vec![13, 29, 59, 127, 257]);
    }

    #[test]
    fn float_hash_is_libstdcxx_hash_bytes() {
        assert_eq!(
            hash(&Value::Float(1.0), Scalar::Float),
            6_045_349_164_495_482_701
        );
        assert_eq!(
            hash(&Value::Double(-2.5), Scalar::Double),
            7_597_697_928_323_647_975
        );
    }
}
