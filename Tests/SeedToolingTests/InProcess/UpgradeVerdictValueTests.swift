import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

@testable import SeedTooling

/// How `check-upgrade` shows the values of a divergence, and the values its simulated user types
/// (issues 41 and 44).
@Suite struct UpgradeVerdictValueTests {
    /// An untyped column holding a REAL infinity on one side and the text `1e400` on the other:
    /// the two are not the same value, and the line says which storage class each is.
    @Test func valuesOfDifferentStorageClassesNameTheirClass() {
        expectEqual(
            UpgradeChecker.shownValue(.real(.infinity), against: .text("1e400")), "1e999 (REAL, infinity)")
        expectEqual(UpgradeChecker.shownValue(.text("1e400"), against: .real(.infinity)), "'1e400' (TEXT)")
        expectEqual(UpgradeChecker.shownValue(.text("1.5"), against: .real(1.5)), "'1.5' (TEXT)")
        // Numbers are numbers to SQLite, whichever class: no class named.
        expectEqual(UpgradeChecker.shownValue(.integer(24), against: .real(19)), "24")
        // Reals print at round-trip precision.
        expectEqual(
            UpgradeChecker.shownValue(.real(791_478_106.807_920_1), against: .real(791_478_106.80792)),
            "791478106.8079201")
    }

    /// A date column is edited with a date, a day later, the time kept.
    @Test func theSimulatedUserEditsADateWithADate() {
        expectEqual(UpgradeChecker.userValue(.string("1882-03-13")), .string("1882-03-14"))
        expectEqual(UpgradeChecker.userValue(.string("1999-12-31T23:59:00Z")), .string("2000-01-01T23:59:00Z"))
        expectEqual(UpgradeChecker.userValue(.string("2024-02-28 10:00")), .string("2024-02-29 10:00"))
        // One day later is what the migration sets: two days later.
        expectEqual(
            UpgradeChecker.userValue(.string("1882-03-13"), avoiding: .string("1882-03-14")), .string("1882-03-15"))
        // Not a date: the note as before.
        expectEqual(
            UpgradeChecker.userValue(.string("1882-13-45")), .string("1882-13-45 (edited by the user)"))
        expectEqual(UpgradeChecker.userValue(.string("12345-01-01")), .string("12345-01-01 (edited by the user)"))
    }

    /// Keys match across the comparison and the run's report as SQLite compares numbers.
    @Test func keyIdentitiesMatchEqualNumbers() {
        expectEqual(UpgradeChecker.keyID([.integer(10)]), UpgradeChecker.keyID([.real(10)]))
        #expect(UpgradeChecker.keyID([.text("10")]) != UpgradeChecker.keyID([.integer(10)]))
        #expect(UpgradeChecker.keyID([.text("a"), .text("b")]) != UpgradeChecker.keyID([.text("a\u{0}t1:b")]))
    }
}
