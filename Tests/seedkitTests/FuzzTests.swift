import Foundation
import SeedTestSupport
import Testing

/// Mutates the BookStore fixtures and manifest at random: seedkit must answer every input
/// with exit 0, 1 or 2 and a message, never crash, and never leave an output behind on error.
@Test(.tags(.slow)) func mutatedInputsNeverCrashAndNeverWriteOnError() throws {
    var rng = SeededRandom(defaultSeed: 20_261_123)
    print("seed \(rng.seed) (replay: SEEDKIT_TEST_SEED=\(rng.seed))")
    let sources: [(path: String, text: String)] = [
        ("seeds/data/books.csv", BookStore.books),
        ("seeds/data/categories.csv", BookStore.categories),
        ("seeds/seedkit.yml", BookStore.manifest),
        ("migrations/0001-add-fourth-book.yml", BookStore.fourthBook),
    ]
    let nasty: [[UInt8]] = [
        [0x22], [0x2C], [0x0A], [0x0D], [0xFF], [0xC3], [0x00], Array("\"\"".utf8), Array(":".utf8), Array("{".utf8),
        Array("- ".utf8),
    ]
    var outcomes: [Int32: Int] = [:]
    for round in 0..<60 {
        let project = try TemporaryProject()
        let target = sources[round % sources.count]
        var bytes = Array(target.text.utf8)
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            guard !bytes.isEmpty else { break }
            let position = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: bytes.insert(contentsOf: nasty.randomElement(using: &rng) ?? [0x22], at: position)
            case 1: bytes.remove(at: position)
            case 2: bytes = Array(bytes.prefix(position))
            default: bytes[position] = UInt8.random(in: 0...255, using: &rng)
            }
        }
        try project.write(target.path, Data(bytes))
        // The binary: a crash is what this test looks for, and in-process it would end the test run.
        let result = try project.seedkitProcess("build")
        outcomes[result.status, default: 0] += 1
        #expect(
            [0, 1, 2].contains(result.status),
            "round \(round), \(target.path) = \(Data(bytes).base64EncodedString()): \(result)")
        if result.status == 0 {
            // The manifest's output: may itself have been mutated: check the path the build reports.
            // The summary is `built PATH: N tables, …`; a mutated path may itself hold a colon.
            let built = result.stdout.split(separator: "\n").first.flatMap { line -> Substring? in
                guard line.hasPrefix("built "), let colon = line.range(of: ": ", options: .backwards) else {
                    return nil
                }
                return line[line.index(line.startIndex, offsetBy: 6)..<colon.lowerBound]
            }
            expectEqual(
                built.map {
                    FileManager.default.fileExists(atPath: project.path(String($0)))
                        || FileManager.default.fileExists(atPath: String($0))
                }, true, "\(result)")
        } else {
            #expect(!result.stderr.isEmpty, "an error says why")
            #expect(!project.exists("build/seed.sqlite"), "round \(round): no output on error")
            #expect(project.listing("build").filter { $0.hasSuffix(".tmp") }.isEmpty, "no temporary file left")
        }
    }
    print("fuzz outcomes (exit code → runs):", outcomes.sorted { $0.key < $1.key })
}
