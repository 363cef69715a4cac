import Foundation
import SeedRuntime

/// The proof that a migration `new-migration` writes reads back as a valid migration: its text,
/// byte for byte, read as `migrate` reads a file (the YAML reader, then the migration grammar),
/// not the rows it was made from (docs/performance.md, "new-migration reads a release's rows in
/// bulk").
enum WrittenMigrationCheck {
    /// Refuses `text` unless it reads as the valid migration file `fileName`.
    ///
    /// The text in the layout `new-migration` writes is read by ``WrittenMigrationReader`` (the
    /// tree the YAML reader gives, without libyaml); any other is cut into its sections
    /// (`insert:`, `update:`, `delete:`, each at the start of a line), parsed on threads of their
    /// own. Either tree is read by the grammar as one document; when any part fails, the whole
    /// text is read as `migrate` reads it, so that an error names its line. The checksum
    /// `migrate` records is not computed: nothing there can fail.
    ///
    /// - Throws: ``SeedError`` as ``MigrationDirectory`` would throw it reading the file `shown`.
    static func require(_ text: String, fileName: String, shown: String) throws(SeedError) {
        if Migration.parseFileName(fileName) != nil,
            let document = WrittenMigrationReader.read(text) ?? parsedBySection(text, shown: shown),
            (try? DataChanges(document: document, file: shown)) != nil
        {
            return
        }
        _ = try Migration.make(fileName: fileName, file: shown, document: try YAMLDocument.parse(text, file: shown))
    }

    /// The top-level sections' entries, each section's text parsed on a thread of its own; nil
    /// when the text has one section, a part does not parse, or a key comes twice.
    static func parsedBySection(_ text: String, shown: String) -> DocNode? {
        let parts = sections(text)
        guard parts.count > 1 else { return nil }
        let results = Results(count: parts.count)
        let done = DispatchSemaphore(value: 0)
        var started = 0
        for index in parts.indices.dropFirst() {
            let part = parts[index]
            do {
                try DetachedThread.start("check the migration it wrote", stackSize: 8 << 20) {
                    results.set(index, try? YAMLDocument.parse(part, file: shown))
                    done.signal()
                }
                started += 1
            } catch {
                results.set(index, try? YAMLDocument.parse(part, file: shown))
            }
        }
        results.set(0, try? YAMLDocument.parse(parts[0], file: shown))
        for _ in 0..<started { done.wait() }
        var entries: [DocEntry] = []
        var keys: Set<String> = []
        for document in results.all {
            guard let part = document?.entries else { return nil }
            for entry in part {
                guard keys.insert(entry.key).inserted else { return nil }
                entries.append(entry)
            }
        }
        return DocNode(.object(entries), line: 1, column: 1)
    }

    /// `text` cut before each line that starts a section of the format (`update:` …) but the
    /// first: the pieces joined are `text`.
    static func sections(_ text: String) -> [String] {
        // By bytes: a split into Characters was a seventh of new-migration's samples.
        let names = MigrationGrammar.sections.map { Array(($0.name + ":").utf8) }
        let bytes = Array(text.utf8)
        var cuts: [Int] = []
        var inSection = false  // the header's comment stays with the first section
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let line = bytes[lineStart..<lineEnd]
            if names.contains(where: { $0.count == line.count && line.elementsEqual($0) }) {
                // The line end before the section goes with it.
                if inSection, lineStart > 0 { cuts.append(lineStart - 1) }
                inSection = true
            }
            lineStart = lineEnd + 1
        }
        var parts: [String] = []
        var start = 0
        for cut in cuts + [bytes.count] {
            parts.append(String(decoding: bytes[start..<cut], as: UTF8.self))
            start = cut
        }
        return parts
    }

    /// Each part's document, written by the thread that parsed it.
    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var documents: [DocNode?]

        init(count: Int) { documents = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ document: DocNode?) {
            lock.lock()
            documents[index] = document
            lock.unlock()
        }

        var all: [DocNode?] {
            lock.lock()
            defer { lock.unlock() }
            return documents
        }
    }
}
