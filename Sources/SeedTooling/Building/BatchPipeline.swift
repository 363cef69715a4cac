import Foundation
import SeedRuntime

/// Hands batches from a reading thread to the SQLite thread through a small bounded
/// queue, so that parsing and converting overlap with inserting on a second core.
final class BatchPipeline: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [RecordBatch] = []
    private var free: [RecordBatch]
    private var producerDone = false
    private var cancelled = false

    init(batches: [RecordBatch]) { free = batches }

    // MARK: Producer

    /// A batch to fill, or nil when the consumer has given up.
    func takeFree() -> RecordBatch? {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty && !cancelled { condition.wait() }
        return cancelled ? nil : free.removeLast()
    }

    func publish(_ batch: RecordBatch) {
        condition.lock()
        ready.append(batch)
        condition.signal()
        condition.unlock()
    }

    func finishProducing() {
        condition.lock()
        producerDone = true
        condition.broadcast()
        condition.unlock()
    }

    // MARK: Consumer

    /// The next filled batch, or nil when the producer is done and all batches are consumed.
    func takeReady() -> RecordBatch? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !producerDone { condition.wait() }
        return ready.isEmpty ? nil : ready.removeFirst()
    }

    func recycle(_ batch: RecordBatch) {
        batch.reset()
        condition.lock()
        free.append(batch)
        condition.signal()
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the producer has finished.
    func waitForProducer() {
        condition.lock()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}
