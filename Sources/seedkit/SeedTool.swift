import ArgumentParser
import SeedTooling
@main struct SeedTool: ParsableCommand { func run() throws { print("hi") } }
