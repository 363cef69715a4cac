// swift-tools-version: 6.0
// An app that adopts seedkit: the SeedRuntime library, and the SeedkitPlugin that builds
// Sources/DemoApp/seeds/ and exports Sources/DemoApp/migrations/ into Bundle.module.
import PackageDescription

let package = Package(
    name: "DemoApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        // `name:` makes the identity "seedkit" whatever the folder is called.
        .package(name: "seedkit", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "DemoApp",
            dependencies: [
                .product(name: "SeedRuntime", package: "seedkit"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["seeds", "migrations"],
            resources: [.copy("Resources/about.txt")],
            plugins: [.plugin(name: "SeedkitPlugin", package: "seedkit")]
        )
    ]
)
