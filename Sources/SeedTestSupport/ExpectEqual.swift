import Testing

/// `#expect(a == b)` as a function: records an issue showing both values when they differ.
///
/// Swift Testing's macro costs every call site a macro expansion and the type-checking of the
/// closures it expands to: for the ~2,000 equality checks of these tests that was 13 s of compiler
/// CPU in each fresh `make test` build. Other conditions keep `#expect`.
public func expectEqual<T: Equatable>(
    _ lhs: T, _ rhs: T, _ comment: @autoclosure () -> Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard lhs != rhs else { return }
    var text =
        "Expectation failed: values differ\n  left:  \(String(reflecting: lhs))\n  right: \(String(reflecting: rhs))"
    if let comment = comment() { text += "\n  \(comment.rawValue)" }
    Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
}
