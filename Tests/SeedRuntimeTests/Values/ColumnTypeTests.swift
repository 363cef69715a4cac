import SeedRuntime
import SeedTestSupport
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
    expectEqual(ColumnType(declaredType: declared), expected)
}

@Test func integersAreParsedStrictly() throws {
    try expectEqual(convert(.integer, "42").get(), .integer(42))
    try expectEqual(convert(.integer, "-9223372036854775808").get(), .integer(.min))
    try expectEqual(convert(.integer, "12.0").get(), .integer(12))
    for bad in ["abc", "", " 1", "1 ", "12.5", "9223372036854775808", "0x10", "1e400", "--1"] {
        #expect(throws: ConversionFailure.self, "\(bad)") { try convert(.integer, bad).get() }
    }
}

@Test func realsRejectWhatStrtodWouldAlsoTake() throws {
    try expectEqual(convert(.real, "10").get(), .real(10))
    try expectEqual(convert(.real, "-1.5e3").get(), .real(-1500))
    try expectEqual(convert(.real, ".5").get(), .real(0.5))
    for bad in ["inf", "nan", "0x1p3", "1e", "1.2.3", "", "1,5"] {
        #expect(throws: ConversionFailure.self, "\(bad)") { try convert(.real, bad).get() }
    }
}

@Test func numericStoresIntegralValuesAsIntegers() throws {
    try expectEqual(convert(.numeric, "12.0").get(), .integer(12))
    try expectEqual(convert(.numeric, "12.25").get(), .real(12.25))
}

@Test func datesAreCheckedAgainstTheCalendar() throws {
    try expectEqual(convert(.date, "2024-02-29").get(), .text("2024-02-29"))
    for bad in ["2023-02-29", "2024-13-01", "2024-1-01", "24-01-01", "2024-01-32", "2024-01-01T00:00"] {
        #expect(throws: ConversionFailure.self, "\(bad)") { try convert(.date, bad).get() }
    }
    try expectEqual(convert(.datetime, "2024-01-01T10:20:30.5Z").get(), .text("2024-01-01T10:20:30.5Z"))
    try expectEqual(convert(.datetime, "2024-01-01 10:20+02:00").get(), .text("2024-01-01 10:20+02:00"))
    #expect(throws: ConversionFailure.self) { try convert(.datetime, "2024-01-01T25:00").get() }
}

@Test func booleansAcceptTheUsualSpellings() throws {
    for yes in ["true", "TRUE", "1", "yes"] { try expectEqual(convert(.boolean, yes).get(), .integer(1)) }
    for no in ["false", "0", "No"] { try expectEqual(convert(.boolean, no).get(), .integer(0)) }
    #expect(throws: ConversionFailure.self) { try convert(.boolean, "maybe").get() }
    try expectEqual(ColumnType.boolean.convert(.bool(true)).get(), .integer(1))
}

@Test func textColumnsKeepTextAsWritten() throws {
    try expectEqual(convert(.text, "0042").get(), .text("0042"))
    try expectEqual(convert(.text, "").get(), .text(""))
    try expectEqual(ColumnType.text.convert(.integer(12)).get(), .text("12"))
}

@Test func integersAndRealsAreTheSameStoredValueWhenEqual() {
    #expect(SQLValue.integer(10).isSame(as: .real(10.0)))
    #expect(!SQLValue.integer(10).isSame(as: .text("10")))
    #expect(SQLValue.null.isSame(as: .null))
}
