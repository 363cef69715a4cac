import Foundation

/// The `python3` the tests run (scripts that make Core Data and SwiftData stores, differential
/// oracles), found once per test process.
///
/// `python3` on PATH may be a version manager's shim: pyenv's is a bash script that runs pyenv to
/// choose the version, about twice the interpreter's own start-up on every call, and the tests
/// call Python over a hundred times. The interpreter the shim chooses is asked for once
/// (`sys.executable`) and run directly after; where it cannot be asked, every call goes through
/// `/usr/bin/env python3` as before.
public enum Python3 {
    /// The program to run: the interpreter, or `/usr/bin/env` when it could not be found.
    public static var executable: URL { resolved.executable }

    /// `arguments` for ``executable``: the script's arguments, after `python3` when run through
    /// `/usr/bin/env`.
    public static func arguments(_ arguments: [String]) -> [String] { resolved.prefix + arguments }

    private static let resolved: (executable: URL, prefix: [String]) = {
        let env = URL(fileURLWithPath: "/usr/bin/env")
        guard
            let asked = try? run(
                env, ["python3", "-c", "import sys; sys.stdout.write(sys.executable)"],
                in: URL(fileURLWithPath: NSTemporaryDirectory())),
            asked.status == 0, asked.stdout.hasPrefix("/"), FileManager.default.isExecutableFile(atPath: asked.stdout)
        else { return (env, ["python3"]) }
        return (URL(fileURLWithPath: asked.stdout), [])
    }()
}
