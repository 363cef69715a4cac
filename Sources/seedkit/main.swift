import SeedkitCLI

// The process: its setup (signals, descriptors, streams), then the command (Sources/SeedkitCLI).
SeedTool.main()
