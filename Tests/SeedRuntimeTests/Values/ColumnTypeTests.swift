import SeedRuntime
import Testing

private func convert(_ type: ColumnType, _ text: String) -> Result<SQLValue, ConversionFailure> {
    type.convert(.string(text))
}

@Test(arguments: [
    ("INTEGER", ColumnType.integer), ("BIGINT", .integer), ("VARCHAR(25)", .text), ("TEXT", .text), ("CLOB", .text),
    ("REAL", .real), ("DOUBLE PRECISION", .real), ("FLOAT", .real), ("BLOB", .blob), ("", .any),
    ("DECIMAL(10,2)", .numeric), ("NUMERIC", .numeric), ("BOOLEAN", .boolean), ("DATE", .date), ("DATETIME", .datetime),
    ("TIMESTAMP", .datetime),
])
func declaredTypesMapToConversions(declared: String, expected: ColumnType) {
    #expect(ColumnType(declaredType: declared) == expected)
}

@Test func integersAreParsedStrictly() throws {
    #expect(try convert(.integer, "42").get() == .integer(42))
    #expect(try convert(.integer, "-9223372036854775808").get() == .integer(.min))
    #expect(try convert(.integer, "12.0").get() == .integer(12))
    for bad in ["abc", "", " 1", "1 ", "12.5", "9223372036854775808", "0x10", "1e400", "--1"] {
        #expect(throws: ConversionFailure.self, "\(bad)") { try convert(.integer, bad).get() }
    }
}

@Test func realsRejectWhatStrtodWouldAlsoTake() throws {
    #expect(try convert(.real, "10").get() == .real(10))
    #expect(try convert(.real, "-1.5e3").get() == .real(-1500))
    #expect(try convert(.real, ".5").get() == .real(0.5))
    for bad in ["inf", "nan", "0x1p3", "1e", "1.2.3", "", "1,5"] {
        #expect(throws: ConversionFailure.self, "\(bad)") { try convert(.real, bad).get() }
    }
}

@Test func numericStoresIntegralValuesAsIntegers() throws {
    #expect(try convert(.numeric, "12.0").get() == .integer(12))
    #expect(try convert(.numeric, "12.25").get() == .real(12.25))
}

@Test func datesAreCheckedAgainstTheCalendar() throws {
    #expect(try convert(.date, "2024-02-29").get() == .text("2024-02-29"))
    for bad in ["2023-02-29", "2024-13-01", "2024-1-01", "24-01-01", "2024-01-32", "2024-01-01T00:00"] {
        #expect(throws: ConversionFailure.self, "\(bad)") { try convert(.date, bad).get() }
    }
    #expect(try convert(.datetime, "2024-01-01T10:20:30.5Z").get() == .text("2024-01-01T10:20:30.5Z"))
    #expect(try convert(.datetime, "2024-01-01 10:20+02:00").get() == .text("2024-01-01 10:20+02:00"))
    #expect(throws: ConversionFailure.self) { try convert(.datetime, "2024-01-01T25:00").get() }
}

@Test func booleansAcceptTheUsualSpellings() throws {
    for yes in ["true", "TRUE", "1", "yes"] { #expect(try convert(.boolean, yes).get() == .integer(1)) }
    for no in ["false", "0", "No"] { #expect(try convert(.boolean, no).get() == .integer(0)) }
    #expect(throws: ConversionFailure.self) { try convert(.boolean, "maybe").get() }
    #expect(try ColumnType.boolean.convert(.bool(true)).get() == .integer(1))
}

@Test func textColumnsKeepTextAsWritten() throws {
    #expect(try convert(.text, "0042").get() == .text("0042"))
    #expect(try convert(.text, "").get() == .text(""))
    #expect(try ColumnType.text.convert(.integer(12)).get() == .text("12"))
}

@Test func integersAndRealsAreTheSameStoredValueWhenEqual() {
    #expect(SQLValue.integer(10).isSame(as: .real(10.0)))
    #expect(!SQLValue.integer(10).isSame(as: .text("10")))
    #expect(SQLValue.null.isSame(as: .null))
}
