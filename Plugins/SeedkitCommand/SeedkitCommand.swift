import Foundation
import PackagePlugin

/// `swift package seedkit <command> …`: runs the seedkit CLI in the package's folder, with
/// the arguments as given (`swift package --allow-writing-to-package-directory seedkit build`,
/// `swift package seedkit check-upgrade seeds/releases/*.sqlite`).
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
            Diagnostics.error("seedkit \(arguments.first ?? "") exited with status \(process.terminationStatus)")
            throw SeedkitCommandFailure(status: process.terminationStatus)
        }
    }
}

/// The CLI's exit status, so that `swift package seedkit …` fails when seedkit does.
struct SeedkitCommandFailure: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "seedkit exited with status \(status)" }
}
