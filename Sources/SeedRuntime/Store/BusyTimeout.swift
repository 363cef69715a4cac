/// How long a write waits for another connection's lock: the values seedkit accepts.
///
/// SQLite takes the wait in whole milliseconds as a 32-bit integer; NaN, infinities and
/// values past that would trap in the conversion, so they are refused before a store opens.
package enum BusyTimeout {
    /// Seconds: from 0 (fail at once) to a day.
    package static let range: ClosedRange<Double> = 0...86_400

    /// What a valid busy timeout is, for messages.
    package static let expectation = "a number of seconds from 0 to 86400"

    /// `seconds`, when it is in ``range``.
    ///
    /// - throws: ``SeedError`` (configuration) saying which values are allowed.
    package static func validated(_ seconds: Double) throws(SeedError) -> Double {
        guard range.contains(seconds) else {
            throw SeedError(.configuration, "the busy timeout must be \(expectation), not \(seconds)")
        }
        return seconds
    }
}
