import Foundation
import SeedTestSupport
import Testing

/// `export-migrations` lists its folder once for the temporary files killed exports left (listing it
/// for each file made 5,000 migrations O(n²): docs/performance.md, "export-migrations lists its
/// folder once"): those of processes gone are removed, a live process's are kept.
@Test func exportRemovesWhatKilledExportsLeftOnceAndKeepsALiveProcesssFile() throws {
    let project = try TemporaryProject()
    try project.write("migrations/0002-discount.sql", "UPDATE books SET price = price - 1;")
    // A pid no process has (above Linux's and macOS's largest), and this test's own.
    let gone = ".0001-add-fourth-book.json.seedkit-2147483646.tmp"
    let goneRun = ".0002-discount.sql.seedkit-2147483646-3.tmp"
    let live = ".0002-discount.sql.seedkit-\(getpid()).tmp"
    for name in [gone, goneRun, live] { try project.write("app/migrations/\(name)", "cut off") }
    let result = try project.seedkit("export-migrations", "app/migrations")
    expectEqual(result.status, 0, "\(result)")
    let names = try FileManager.default.contentsOfDirectory(atPath: project.path("app/migrations")).sorted()
    expectEqual(names, [live, "0001-add-fourth-book.json", "0002-discount.sql"].sorted())
    expectEqual(
        project.read("app/migrations/0002-discount.sql").map { String(decoding: $0, as: UTF8.self) },
        "UPDATE books SET price = price - 1;")
}
