public import Testing

extension Tag {
    /// A test that takes a second or more on its own (a fuzzer, a differential run over
    /// thousands of inputs, a big, deep or killed migration): `make test` leaves it to `make
    /// test-slow` (CI runs both).
    ///
    /// Put the tag on the line of the test's `func`, in its `@Test` attribute:
    /// `scripts/slow-tests.py` finds it there and fails on one it cannot place.
    @Tag public static var slow: Self
}
