import Foundation

/// A small deterministic random number generator (SplitMix64) for randomized tests.
///
/// Randomized tests draw from it so that a failure in CI can be replayed: each test prints its
/// seed, and `SEEDKIT_TEST_SEED=N swift test --filter …` runs it again with that seed.
public struct SeededRandom: RandomNumberGenerator {
    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// Starts from `SEEDKIT_TEST_SEED` when it is set, otherwise from `defaultSeed`.
    public init(defaultSeed: UInt64) {
        let fromEnvironment = ProcessInfo.processInfo.environment["SEEDKIT_TEST_SEED"].flatMap { UInt64($0) }
        seed = fromEnvironment ?? defaultSeed
        state = seed
    }

    /// The next number of the sequence (SplitMix64), the same for the same seed on every run.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One of `items`, drawn from this generator.
    public mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }

    /// A generator that starts from `seed` whatever the environment says (a test that draws its
    /// seed itself, or several fixed ones).
    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }
}
