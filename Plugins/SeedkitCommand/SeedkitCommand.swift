import Foundation
import PackagePlugin

/// `swift package seedkit <command> …`: runs the seedkit CLI in the package's folder, with
/// the arguments as given (`swift package --allow-writing-to-package-directory seedkit build`).
///
/// The plugin declares that it writes into the package (build, new-migration), so SwiftPM asks for
/// that permission on every run: a terminal prompts, elsewhere (CI) it needs the flag.
@main
struct SeedkitCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let process = Process()
        process.executableURL = try context.tool(named: "seedkit").url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            // SwiftPM prints this once, as `error: seedkit build exited with status 2`, and exits 1.
            throw SeedkitCommandFailure(command: arguments.first ?? "", status: process.terminationStatus)
        }
    }
}

/// The CLI's exit status, so that `swift package seedkit …` fails when seedkit does (SwiftPM's
/// own exit status is then 1, whatever seedkit's was; the message keeps seedkit's).
struct SeedkitCommandFailure: Error, CustomStringConvertible {
    var command: String
    var status: Int32
    var description: String { "seedkit \(command) exited with status \(status)" }
}
