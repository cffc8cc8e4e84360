//! C's `rand`/`srand`, giving exactly glibc's numbers.
//!
//! glibc's `rand()` is `random()` with its default state: the additive
//! feedback generator of degree 31 and separation 3 ("TYPE_3"). `srand(s)`
//! fills the 31 words from `s` with the "minimal standard" generator
//! (multiplier 16807, modulus 2^31 - 1, by Schrage's method on 32-bit
//! words) and runs the generator 310 times; a program that never calls
//! `srand` behaves as after `srand(1)`. Each result is the newest word
//! (sums wrap at 32 bits) shifted right once.

/// `RAND_MAX` in glibc.
pub const RAND_MAX: i32 = 2_147_483_647;

const DEGREE: usize = 31;
const SEPARATION: usize = 3;

/// The generator's state: 31 words and two positions `SEPARATION` apart
/// that walk round them together.
#[derive(Clone, Debug)]
pub struct Rand {
    words: [u32; DEGREE],
    /// The word that receives the sum.
    front: usize,
    /// The word added to it.
    rear: usize,
}

impl Default for Rand {
    fn default() -> Self {
        Rand::seeded(1)
    }
}

impl Rand {
    /// The state after `srand(seed)`.
    pub fn seeded(seed: u32) -> Rand {
        // glibc replaces a zero seed by 1 (the LCG would stay at zero).
        let seed = if seed == 0 { 1 } else { seed };
        let mut words = [0u32; DEGREE];
        // The seed is stored into a 32-bit signed word.
        let mut word = seed as i32;
        words[0] = word as u32;
        for w in words.iter_mut().skip(1) {
            // 16807 * word mod (2^31 - 1) without overflow; C's `/` and `%`
            // truncate toward zero, as Rust's do.
            let hi = word / 127_773;
            let lo = word % 127_773;
            word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            *w = word as u32;
        }
        let mut r = Rand {
            words,
            front: SEPARATION,
            rear: 0,
        };
        for _ in 0..(10 * DEGREE) {
            r.step();
        }
        r
    }

    /// Advances one word and returns it.
    fn step(&mut self) -> u32 {
        let new = self.words[self.front].wrapping_add(self.words[self.rear]);
        self.words[self.front] = new;
        self.front = (self.front + 1) % DEGREE;
        self.rear = (self.rear + 1) % DEGREE;
        new
    }

    /// The next `rand()`.
    pub fn rand(&mut self) -> i32 {
        (self.step() >> 1) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sequence_is_glibcs() {
        let mut r = Rand::default();
        let got: Vec<i32> = (0..3).map(|_| r.rand()).collect();
        assert_eq!(got, [1_804_289_383, 846_930_886, 1_681_692_777]);
    }

    #[test]
    fn zero_seed_is_one() {
        assert_eq!(Rand::seeded(0).rand(), Rand::seeded(1).rand());
    }
}
