import Foundation
import SeedRuntime

/// check-upgrade's progress on stderr, drawn as `build`'s bar is: the seed and the step it is at,
/// only once the check has taken half a second; a stage that reports often (the fresh build's
/// rows) at most ten times a second.
final class StepProgress: @unchecked Sendable {
    private let enabled: Bool
    private let start = Date()
    private var last = Date.distantPast
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ stage: String, done: Int, total: Int, throttled: Bool = false) {
        let now = Date()
        guard enabled, now.timeIntervalSince(start) > 0.5, !throttled || now.timeIntervalSince(last) > 0.1 else {
            return
        }
        last = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let filled = Int(fraction * 30)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
        Output.standardError(raw: "\r\u{1B}[2K\(bar) \(Int(fraction * 100))% \(stage.escapingControls())")
        drawn = true
    }

    func finish() {
        if drawn { Output.standardError(raw: "\r\u{1B}[2K") }
    }
}
