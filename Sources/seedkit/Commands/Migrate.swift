import ArgumentParser
extension SeedTool { struct Migrate: ParsableCommand { func run() throws { throw ExitCode(2) } } }
