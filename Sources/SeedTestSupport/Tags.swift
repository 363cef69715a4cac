public import Testing

extension Tag {
    /// A test that takes seconds on its own (a fuzzer, a differential run over thousands of
    /// inputs, a deep or killed migration), for a test plan or an editor's tag filter that
    /// leaves them out while iterating; `make test` runs them all.
    @Tag public static var slow: Self
}
