import Testing

@testable import SeedRuntime

/// `isReal` decides without strtod when a number is plainly finite; it must take exactly what `real` takes.
@Test func numberSyntaxIsRealTakesExactlyWhatRealConverts() {
    func agree(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            return NumberSyntax.isReal(bytes) == (NumberSyntax.real(bytes) != nil)
        }
    }
    let edges = [
        "", "0", "-0", "+1", ".5", "5.", ".", "-", "e5", "1e", "1e+", "1E-3", "12.5e2", "1.5E+2", "1e308",
        "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1.8e308", "1e309",
        "0.0000001e314", "99999999999999999999e289", "9999999999999999999999e287", "1e-400", "1e-99999", "1e99999",
        "1e0000000000000000000000000000000000000000000000000000000000005", String(repeating: "9", count: 63),
        String(repeating: "9", count: 64), "1 ", " 1", "0x10", "inf", "nan", "1.2.3", "1e5e5", "--1", "1-",
    ]
    for text in edges { #expect(agree(text), "\(text)") }
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("0123456789.eE+-")
    let digits = Array("0123456789")
    for _ in 0..<20_000 {
        // Half free-form strings from the number alphabet, half well-formed numbers near the largest double.
        let text: String
        if Bool.random(using: &generator) {
            text = String(
                (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator) ?? "0"
                })
        } else {
            let whole = String(
                (0..<Int.random(in: 1...30, using: &generator)).map { _ in
                    digits.randomElement(using: &generator) ?? "0"
                })
            text =
                "\(whole).\(Int.random(in: 0...999, using: &generator))e\(Int.random(in: 250...340, using: &generator) - whole.count)"
        }
        #expect(agree(text), "\(text)")
    }
}
