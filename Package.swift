// swift-tools-version: 6.1
import Foundation
import PackageDescription

let package = Package(
    name: "seedkit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        // What an app links: install the bundled seed, apply pending migrations. GRDB, and SHA-256 from the platform (CryptoKit; libcrypto on Linux).
        .library(name: "SeedRuntime", targets: ["SeedRuntime"]),
        // Fixtures, validation, building, planning, inspection: what the CLI and CI use.
        .library(name: "SeedTooling", targets: ["SeedTooling"]),
        .executable(name: "seedkit", targets: ["seedkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        .target(
            name: "SeedRuntime",
            // GRDBSQLite is GRDB's own SQLite module: the C API for what GRDB does not wrap (sqlite3_complete, authorizers).
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .target(name: "CLibCrypto", condition: .when(platforms: [.linux])),
            ]
        ),
        // SHA-256 on Linux: the system OpenSSL's libcrypto (Apple platforms use CryptoKit). Not
        // swift-crypto: compiling its BoringSSL cost each fresh build minutes (docs/performance.md).
        .systemLibrary(name: "CLibCrypto", path: "Sources/CLibCrypto", providers: [.apt(["libssl-dev"])]),
        // The system zlib (libz on Apple platforms and Linux): inflates the compiled Core Data model a store keeps in Z_MODELCACHE.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(
            name: "SeedTooling",
            dependencies: [
                "SeedRuntime",
                "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // For its CYaml module: libyaml, whose event parser YAMLDocument drives itself.
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The CLI's commands, as a library: the seedkit binary runs them in its process, the tests in theirs.
        .target(
            name: "SeedkitCLI",
            dependencies: [
                "SeedTooling",
                "SeedRuntime",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "seedkit", dependencies: ["SeedkitCLI"]),
        // Not a product: times the app-launch path in-process for `make bench`.
        .executableTarget(
            name: "seedkit-bench", dependencies: ["SeedRuntime", .product(name: "GRDB", package: "GRDB.swift")]),
        // Not a product: temporary projects, and runners for seedkit's commands (in-process, and the
        // real binary for what only a process shows), shared by the tests.
        .target(
            name: "SeedTestSupport",
            dependencies: ["SeedRuntime", "SeedkitCLI", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "SeedRuntimeTests",
            dependencies: ["SeedRuntime", "SeedTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // Yams: the YAML reader seedkit used before, kept as the reference the event reader is compared with.
        // Fixtures/RealStores: stores and models from public repositories (its README says whose), read from the source tree.
        .testTarget(
            name: "SeedToolingTests",
            dependencies: [
                "SeedTooling", "SeedRuntime", "SeedTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Yams", package: "Yams"),
            ],
            exclude: ["Fixtures/RealStores"]),
        .testTarget(
            name: "seedkitTests",
            dependencies: [
                "seedkit", "SeedTooling", "SeedRuntime", "SeedTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ]
)

// `make test` sets SEEDKIT_WITHOUT_PLUGINS: with a plugin in the graph, SwiftPM 6 compiles the CLI
// and every library under it a second time, for the plugin's host tool
// (swiftlang/swift-package-manager#8275): 35 s of a fresh `make test`, for plugins nothing in it
// runs. `make check-example` (CI) builds Examples/DemoApp, which uses both plugins.
if Context.environment["SEEDKIT_WITHOUT_PLUGINS"] == nil {
    // The plugins run the seedkit CLI: compiled with the app's build (its libraries, Yams and
    // ArgumentParser included), unless SEEDKIT_ARTIFACTBUNDLE names a prebuilt one that `make
    // artifactbundle` wrote (docs/runtime.md, "A prebuilt CLI for the plugins"). SwiftPM reads a
    // binary target only by a path relative to the package, so an absolute path is made relative.
    var pluginTool: Target.Dependency = "seedkit"
    if let bundle = Context.environment["SEEDKIT_ARTIFACTBUNDLE"], !bundle.isEmpty {
        package.targets.append(.binaryTarget(name: "SeedkitBinary", path: relativeToPackage(bundle)))
        pluginTool = "SeedkitBinary"
    }
    package.products += [
        // Builds a target's seeds/ and exports its migrations/ into its resources at build time.
        .plugin(name: "SeedkitPlugin", targets: ["SeedkitPlugin"]),
        // `swift package seedkit build|check-upgrade|…`: the CLI from inside a package.
        .plugin(name: "SeedkitCommand", targets: ["SeedkitCommand"]),
    ]
    package.targets += [
        .plugin(name: "SeedkitPlugin", capability: .buildTool(), dependencies: [pluginTool]),
        .plugin(
            name: "SeedkitCommand",
            capability: .command(
                intent: .custom(
                    verb: "seedkit",
                    description: "Run the seedkit CLI in this package (build, check-upgrade, new-migration, …)."),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "seedkit build and new-migration write the seed and migration files")
                ]),
            dependencies: [pluginTool]),
    ]
}

for target in package.targets where [.regular, .executable, .test].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}

/// `path` relative to this package's folder (`../../bundles/seedkit.artifactbundle`); a relative path as it is.
func relativeToPackage(_ path: String) -> String {
    guard path.hasPrefix("/") else { return path }
    let from = URL(fileURLWithPath: Context.packageDirectory).standardizedFileURL.pathComponents
    let to = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
    let shared = zip(from, to).prefix { $0 == $1 }.count
    return (Array(repeating: "..", count: from.count - shared) + to[shared...]).joined(separator: "/")
}
