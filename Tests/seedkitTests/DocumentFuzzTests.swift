import Foundation
import SeedRuntime
import SeedTestSupport
import Testing

/// Mutates migrations (YAML and JSON) and the manifest at random, and adds hostile shapes (deep
/// nesting, alias bombs, huge numbers, bad UTF-8): `migrate` and `status` must answer every one
/// with exit 0, 1, 2 or 3 (never a crash or a kill by the bounded runner), never change the store
/// on a failure, and `build` must never leave an output behind on a failure.
@Test(.tags(.slow)) func mutatedMigrationsAndManifestsNeverCrashNorChangeTheStore() throws {
    // Seeded, so that a failure in CI replays: SEEDKIT_TEST_SEED=N (each run prints its seed).
    var rng = SeededRandom(defaultSeed: 0xD0C5)  // fixed: a run replays; SEEDKIT_TEST_SEED tries others
    print("seed \(rng.seed) (replay: SEEDKIT_TEST_SEED=\(rng.seed))")
    let fourthJSON = #"{"insert": {"books": [{"title": "The fourth book", "price": 12, "category_id": "Biography"}]}}"#
    let sources: [(path: String, text: String)] = [
        (
            "migrations/0002-fuzz.yml",
            "update:\n  books:\n    - key: The first book\n      from: { price: 10 }\n      to: { price: 11 }\n"
        ),
        ("migrations/0002-fuzz.json", fourthJSON.replacingOccurrences(of: "fourth", with: "fifth")),
        ("seeds/seedkit.yml", BookStore.manifest),
    ]
    let nasty: [[UInt8]] = [
        [0x22], [0x27], [0x0A], [0x0D], [0xFF], [0xC3], [0x00], Array(": ".utf8), Array("{".utf8), Array("[".utf8),
        Array("- ".utf8),
        Array("&a ".utf8), Array("*a".utf8), Array("99999999999999999999".utf8), Array("-9223372036854775809".utf8),
        Array("1e999".utf8),
        Array(".nan".utf8), Array(String(repeating: "[", count: 300).utf8),
        Array(String(repeating: "{\"a\":", count: 300).utf8),
        Array("\u{FEFF}".utf8), [0xED, 0xA0, 0x80], Array("!!binary ".utf8), Array("? ".utf8), Array("\t".utf8),
    ]
    let bomb =
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + ["b", "c", "d", "e", "f", "g", "h", "i"].enumerated().map { index, name in
            let previous = ["a", "b", "c", "d", "e", "f", "g", "h"][index]
            return "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]\n"
        }.joined()
    var outcomes: [Int32: Int] = [:]
    let project = try TemporaryProject.withUserStore()
    try FileManager.default.copyItem(atPath: project.path("user.sqlite"), toPath: project.path("pristine.sqlite"))
    let before = sha256(of: project, "user.sqlite")
    for round in 0..<48 {
        let target = sources[round % sources.count]
        var bytes = Array(target.text.utf8)
        if round % 8 == 7 { bytes = Array(bomb.utf8) + bytes }  // an alias bomb in front of a valid document
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
        for source in sources { try? project.remove(source.path) }
        try project.write("seeds/seedkit.yml", BookStore.manifest)
        try project.write(target.path, Data(bytes))
        let shown = "round \(round), \(target.path) = \(Data(bytes).base64EncodedString())"
        for arguments in [["status", "user.sqlite"], ["migrate", "user.sqlite"]] {
            let result = try runSeedkitBounded(arguments, in: project.root)
            outcomes[result.status, default: 0] += 1
            #expect([0, 1, 2, 3].contains(result.status), "\(shown): \(result)")
            if result.status != 0 { #expect(!result.stderr.isEmpty, "an error says why: \(shown)") }
            if arguments[0] == "migrate" && result.status == 0 {
                // Applied: put the store back for the next round.
                try FileManager.default.removeItem(atPath: project.path("user.sqlite"))
                try FileManager.default.copyItem(
                    atPath: project.path("pristine.sqlite"), toPath: project.path("user.sqlite"))
            }
            if result.status != 0 {
                expectEqual(sha256(of: project, "user.sqlite"), before, "\(shown): the store changed on \(result)")
            }
        }
        if target.path.hasPrefix("seeds/") {
            try? project.remove("build/fuzz.sqlite")
            let result = try runSeedkitBounded(["build", "--output", "build/fuzz.sqlite"], in: project.root)
            outcomes[result.status, default: 0] += 1
            // Not 4: a build reads its seed back and compares it with the fixtures (issue 41), so a
            // mutated manifest that makes a seed differ from its fixtures fails here.
            #expect([0, 1, 2].contains(result.status), "\(shown): \(result)")
            if result.status != 0 { #expect(!project.exists("build/fuzz.sqlite"), "\(shown): no output on error") }
        }
    }
    print("document fuzz outcomes (exit code → runs):", outcomes.sorted { $0.key < $1.key })
}
