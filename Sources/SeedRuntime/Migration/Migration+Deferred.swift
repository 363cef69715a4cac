import Foundation

/// A large JSON migration, read while it is applied: a reading thread parses its rows ahead of
/// the run, which writes each chunk as it comes.
///
/// Parsing (a fifth of a 100,000-row update) then runs on another core, and the rows never all sit
/// in memory at once.
///
/// Its bytes are read, and their text checked, ahead (``readAhead()``: the first such file of a
/// ``SeedMigrator`` about to run, while its caller opens the store) or when first needed, by
/// whichever thread needs them: usually ahead of the applying thread (the whole 13 MB file of a
/// 100,000-row update was once read there before the run began). Its checksum, for the ledger's
/// check of applied migrations, is the one the ledger recorded when the bytes' digest matches the
/// one recorded beside it (``adopt(checksum:)``), else scanned as a run scans it; its operations,
/// for release keys, come from the file read whole, once. A file that does not read (bad JSON, a
/// shape the format refuses, an I/O error) is reported by the run that applies it, with the error
/// the whole read gives; the run's transaction then rolls back and nothing is written.
package final class DeferredJSONMigration: @unchecked Sendable {
    /// JSON migration files from this size on are read while applied by ``MigrationDirectory/load(_:)``.
    package static let threshold = 1 << 20
    /// Rows per chunk the reading thread hands over, and chunks it may read ahead.
    ///
    /// The first chunk is smaller: the run waits for it (1,024 rows took 2.6 ms to parse).
    static let chunkRows = 1024
    static let firstChunkRows = 128
    static let chunksAhead = 4
    /// Bytes of the file hashed after each chunk (see ``stream(_:)``).
    static let digestPiece = 256 << 10

    let fileName: String
    let file: String
    private let url: URL
    private let lock = NSLock()
    private var whole: Result<Migration, SeedError>?
    private var streamedChecksum: String?
    private let bytesLock = NSLock()
    private var loaded: Result<Data, SeedError>?
    private var checkedText: Result<Data, SeedError>?
    /// Held while the text is checked: one check at a time, the others wait for its answer.
    private let textLock = NSLock()
    /// Whether ``readAhead()`` was asked (once is enough), and whether ``releaseBytes()`` came
    /// first: a run that failed at once must not leave a read-ahead to read the file afterwards
    /// and keep it.
    private var readingAhead = false
    private var aheadCancelled = false
    private var loadedDigest: String?
    /// How many times the checksum was scanned or read whole (for tests: a launch that finds the
    /// bytes it applied does not).
    package private(set) var checksumScans = 0

    /// The file at `url` (shown as `file`), read when first needed.
    init(fileName: String, file: String, url: URL) {
        self.fileName = fileName
        self.file = file
        self.url = url
    }

    /// The file's bytes, read once (again after ``releaseBytes()``).
    func bytes() -> Result<Data, SeedError> {
        bytesLock.withLock { loadLocked() }
    }

    /// ``bytes()``, with `bytesLock` held.
    private func loadLocked() -> Result<Data, SeedError> {
        if let loaded { return loaded }
        fileReads += 1
        let result: Result<Data, SeedError>
        do { result = .success(try Data(contentsOf: url)) } catch {
            result = .failure(SeedError(.configuration, file: file, "cannot read: \(error.localizedDescription)"))
        }
        loaded = result
        return result
    }

    /// The file's bytes when they are text (``Migration/textProblem(_:file:)``), else why not:
    /// what the reading thread, the checksum's scan and the whole read parse.
    ///
    /// Checked once for the bytes read (again after ``releaseBytes()``).
    private func text() -> Result<Data, SeedError> {
        textLock.withLock { checkedTextLocked().text }
    }

    /// ``text()`` and which read of the file its bytes are (``fileReads``), with `textLock` held.
    ///
    /// The check runs outside `bytesLock`: the ledger's digest of the bytes need not wait for it.
    private func checkedTextLocked() -> (text: Result<Data, SeedError>, read: Int) {
        let (known, bytes, read) = bytesLock.withLock { (checkedText, loadLocked(), fileReads) }
        if let known { return (known, read) }
        return (check(bytes, ofRead: read), read)
    }

    /// `bytes` (those of the file's `read`th read), or why they are not text; the answer is kept
    /// only while those bytes are held.
    ///
    /// `textLock` held.
    private func check(_ bytes: Result<Data, SeedError>, ofRead read: Int) -> Result<Data, SeedError> {
        let text = bytes.flatMap { data in
            Migration.textProblem(data, file: file).map { .failure($0) } ?? .success(data)
        }
        bytesLock.withLock { if fileReads == read, loaded != nil { checkedText = text } }
        return text
    }

    /// Starts reading the file, then checking its text, on another thread (once: later calls do
    /// nothing): whoever needs it next (the run that applies it, the ledger's check of an applied
    /// one) finds it read, or waits for the read under way.
    ///
    /// Measured on a 100,000-row update (13 MB): the reading thread's rows came 15 ms after the run
    /// began, of which 8 ms reading the file and 3 ms checking it, while the CLI read its manifest
    /// and opened the store. A file someone has read already is not read again (its bytes may have
    /// been let go since), and the check is kept only while the bytes it checked are (a launch's
    /// ledger check hashes them, then lets them go, without waiting for it).
    func readAhead() {
        let first = bytesLock.withLock {
            let first = !readingAhead
            readingAhead = true
            return first
        }
        guard first else { return }
        // A thread that can't start reads nothing ahead: the run reads the file itself when it needs it.
        try? DetachedThread.start("read \(file) ahead") { [self] in
            let read: Int? = bytesLock.withLock {
                guard fileReads == 0, !aheadCancelled else { return nil }
                _ = loadLocked()
                return fileReads
            }
            guard let read else { return }
            textLock.withLock {
                // Only the bytes this thread read, if they are still held: nothing is read again.
                let (known, held) = bytesLock.withLock { (checkedText, fileReads == read ? loaded : nil) }
                guard known == nil, let held else { return }
                _ = check(held, ofRead: read)
            }
        }
    }

    /// The SHA-256 of the file's bytes (hex), once: of the bytes first read, which it is taken
    /// from under the same lock; nil when the file does not read.
    var bytesDigest: String? {
        bytesLock.withLock {
            if let loadedDigest { return loadedDigest }
            guard case .success(let data) = loadLocked() else { return nil }
            let digest = SHA256.hex(data)
            loadedDigest = digest
            return digest
        }
    }

    /// The digest of the bytes of the file's `read`th read, taken as they were streamed: the
    /// ledger's ``bytesDigest`` when those bytes are still the ones held.
    private func adopt(digest: String, ofRead read: Int) {
        bytesLock.withLock {
            if loadedDigest == nil, loaded != nil, fileReads == read { loadedDigest = digest }
        }
    }

    /// Drops the bytes read for a run, or for the ledger's check of a migration the store has
    /// applied (the 13 MB of a 100,000-row update an app bundles stayed in memory for as long as
    /// the app held its migrations).
    ///
    /// Its digest and checksum stay, so a later check (``SeedInstaller`` asks two or three times a
    /// launch) reads nothing; only the whole read (``read()``), if asked for the first time, reads
    /// the file again.
    func releaseBytes() {
        bytesLock.withLock {
            loaded = nil
            checkedText = nil
            aheadCancelled = true
        }
    }

    /// How many times the file was read (for tests: the ledger's checks of a launch read it once).
    package var readsOfFile: Int { bytesLock.withLock { fileReads } }
    private var fileReads = 0

    /// Whether the file's bytes are held (for tests: a launch that finds it applied lets them go).
    package var holdsBytes: Bool { bytesLock.withLock { loaded != nil } }

    /// The checksum the ledger recorded for these very bytes (their digest matched the one
    /// recorded when they were applied): ``checksum`` is then known without a scan.
    func adopt(checksum: String) {
        lock.withLock { streamedChecksum = checksum }
    }

    /// The migration read whole, as ``MigrationDirectory`` reads a small file (once; then the same result).
    func read() -> Result<Migration, SeedError> {
        lock.lock()
        defer { lock.unlock() }
        if let whole { return whole }
        let result: Result<Migration, SeedError>
        switch text() {
        case .failure(let error): result = .failure(error)
        case .success(let data):
            do { result = .success(try Migration.readJSON(fileName: fileName, file: file, data: data)) } catch {
                result = .failure(error)
            }
        }
        whole = result
        return result
    }

    /// The checksum: from the run that streamed the file or the ledger that recorded these bytes
    /// (``adopt(checksum:)``), else scanned, else from reading it whole.
    ///
    /// A file that does not read has its bytes' digest, which matches no ledger's (applying it
    /// reports its error).
    var checksum: String {
        if let known = lock.withLock({ streamedChecksum }) { return known }
        lock.withLock { checksumScans += 1 }
        // Scanned as the reading thread scans it, each chunk of rows dropped as it is read: the
        // ledger asks at every launch once the file is applied, and the whole read would build
        // all its rows and keep them. Where the scan stops (not text, a shape only the whole
        // read takes, an error), the whole read gives the answer.
        if case .success(let data) = text(),
            let scanned = data.withUnsafeBytes({
                Migration.readStreamed(file: file, json: $0, chunkRows: Self.chunkRows) { _, _ in true }
            })
        {
            lock.withLock { streamedChecksum = scanned }
            return scanned
        }
        switch read() {
        case .success(let migration): return migration.checksum
        case .failure: return "sha256:" + (bytesDigest ?? "")
        }
    }

    /// The operations, read whole; none for a file that does not read.
    var operations: [DataChanges.Operation] {
        guard case .success(let migration) = read(), case .changes(let changes) = migration.body else { return [] }
        return changes.operations
    }

    /// Applies the file as it is read: `apply` gets each operation on the calling thread, its
    /// rows or items in chunks (each with its operation's index in the file), while a reading
    /// thread parses ahead.
    ///
    /// Throws what `apply` throws, or the file's error after the rows before it were applied: the
    /// caller's transaction must then roll back.
    func stream(_ apply: (_ operation: DataChanges.Operation, _ index: Int) throws -> Void) throws {
        let channel = OperationChannel(capacity: Self.chunksAhead)
        // The stack is as deep as a document may nest.
        try DetachedThread.start("read \(file)", stackSize: 8 << 20) { [self] in
            // Unreadable, or not text: nothing is handed over, and the whole read below reports it.
            let (text, read) = textLock.withLock { checkedTextLocked() }
            guard case .success(let data) = text else { return channel.finish(nil) }
            // The bytes' digest, for the ledger (recordFileDigest), a piece after each chunk: the
            // run writes each chunk for longer than this thread takes to read it. Taken whole
            // after the last chunk, it made the run wait 5-8 ms for 13 MB.
            var digest = SHA256()
            var hashed = 0
            let checksum = data.withUnsafeBytes { bytes in
                let checksum = Migration.readStreamed(
                    file: file, json: bytes, chunkRows: Self.chunkRows, firstChunkRows: Self.firstChunkRows
                ) { index, operation in
                    defer { channel.dropSpent() }
                    guard channel.put(index, operation) else { return false }
                    let end = min(bytes.count, hashed + Self.digestPiece)
                    digest.update(buffer: UnsafeRawBufferPointer(rebasing: bytes[hashed..<end]))
                    hashed = end
                    return true
                }
                if checksum != nil {
                    digest.update(buffer: UnsafeRawBufferPointer(rebasing: bytes[hashed...]))
                }
                return checksum
            }
            if checksum != nil { adopt(digest: digest.hexDigest, ofRead: read) }
            channel.finish(checksum)
        }
        defer {
            channel.cancel()
            channel.waitUntilFinished()
        }
        // Where the stream got to: the last operation's index and how many of its items were applied.
        var position = (index: -1, items: 0)
        while let (index, operation) = channel.take() {
            position.items = (index == position.index ? position.items : 0) + operation.itemCount
            position.index = index
            try apply(operation, index)
            channel.spend(operation)
        }
        if let checksum = channel.checksum {
            lock.withLock { streamedChecksum = checksum }
            return
        }
        // The streaming reader stopped: the whole read reports the error or, for a shape only it
        // takes, gives the rest, which continues where the stream stopped (its rows are the same).
        let migration = try read().get()
        guard case .changes(let changes) = migration.body else { return }
        for (index, operation) in changes.operations.enumerated() where index >= position.index {
            if index > position.index {
                try apply(operation, index)
            } else if operation.itemCount > position.items {
                // Only a section of rows is handed over in chunks: the items the stream did not reach.
                try apply(operation.droppingFirst(position.items), index)
            }
        }
    }
}

/// Operations handed from the reading thread to the run, at most `capacity` waiting.
private final class OperationChannel: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: [(index: Int, operation: DataChanges.Operation)] = []
    private let capacity: Int
    private var finished = false
    private var cancelled = false
    private var result: String?
    /// Operations the run has applied: the reading thread, which made their rows, frees them
    /// too, so that freeing a big migration's rows (their arrays and strings) is not the
    /// applying thread's work, and each is freed by the thread that allocated it.
    private var spent: [DataChanges.Operation] = []

    init(capacity: Int) { self.capacity = capacity }

    /// The run is done with `operation`.
    func spend(_ operation: DataChanges.Operation) {
        condition.lock()
        spent.append(operation)
        condition.unlock()
    }

    /// Frees what the run is done with (on the calling thread: the reading one).
    func dropSpent() {
        condition.lock()
        let done = spent
        spent.removeAll(keepingCapacity: true)
        condition.unlock()
        withExtendedLifetime(done) {}
    }

    /// Waits for room; false once the run stopped taking (the reader then stops).
    func put(_ index: Int, _ operation: DataChanges.Operation) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        waiting.append((index, operation))
        condition.broadcast()
        return true
    }

    /// The reader is done: with the checksum, or nil when it stopped early.
    func finish(_ checksum: String?) {
        condition.lock()
        result = checksum
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next operation, waiting for it; nil once the reader is done and all were taken.
    func take() -> (Int, DataChanges.Operation)? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && !finished { condition.wait() }
        guard !waiting.isEmpty else { return nil }
        let next = waiting.removeFirst()
        condition.broadcast()
        return (next.index, next.operation)
    }

    /// The reader's checksum, once ``take()`` returned nil.
    var checksum: String? {
        condition.lock()
        defer { condition.unlock() }
        return result
    }

    /// The run stopped: the reader's next ``put(_:_:)`` returns false.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
