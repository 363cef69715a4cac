import ArgumentParser
extension SeedTool { struct Inspect: ParsableCommand { func run() throws { throw ExitCode(2) } } }
