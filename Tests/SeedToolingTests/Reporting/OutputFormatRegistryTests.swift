import Foundation
import GRDB
import SeedRuntime
import SeedTestSupport
import SeedTooling
import Testing

/// The one registry of output formats (issue 36; docs/reference.md#output-formats): every
/// command's report, printed in every format, in-process.
@Suite struct OutputFormatRegistryTests {
    /// docs/reference.md#output-formats, as its two tables say it: the formats (name, and older
    /// spellings after "also spelled"), and per command, each format's cell ("refused" when it
    /// prints none).
    ///
    /// The tests below hold the registry to them, as sqlite-utils' test_docs.py holds its CLI to
    /// its docs: a format or a report added in code and not in the reference fails.
    static func reference() throws -> (formats: [[String]], commands: [(command: String, prints: Set<String>)]) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/reference.md"), encoding: .utf8)
        let section = text.components(separatedBy: "\n## Output formats\n").dropFirst().first ?? ""
        let body = section.components(separatedBy: "\n## ").first ?? ""
        func cells(_ line: Substring) -> [String] {
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        func names(_ cell: String) -> [String] {
            cell.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        }
        var formats: [[String]] = []
        var commands: [(String, Set<String>)] = []
        var columns: [[String]] = []
        for line in body.split(separator: "\n") where line.hasPrefix("| ") {
            let row = cells(line)
            if row.first == "format" || row.first == "command" {
                columns = row.dropFirst().map(names)
            } else if columns.isEmpty {
                continue
            } else if row.count == 2 {
                // `human` (default; also spelled `table`): the name, then its older spellings.
                formats.append(names(row[0]))
            } else if row.count == columns.count + 1 {
                let printed = zip(columns, row.dropFirst()).filter { $0.1 != "refused" }.flatMap(\.0)
                commands.append((names(row[0]).first ?? row[0], Set(printed)))
            }
        }
        return (formats, commands)
    }

    @Test func everyNameAndOlderSpellingSelectsOneFormat() throws {
        let spellings = OutputFormat.all.flatMap { [$0.name] + $0.aliases }
        expectEqual(Set(spellings).count, spellings.count, "no spelling selects two formats: \(spellings)")
        // The reference lists every format, in the registry's order, with its older spellings.
        expectEqual(try Self.reference().formats, OutputFormat.all.map { [$0.name] + $0.aliases })
        for format in OutputFormat.all {
            expectEqual(OutputFormat(spelling: format.name), format)
            for alias in format.aliases { expectEqual(OutputFormat(spelling: alias), format) }
            expectEqual(OutputFormat(spelling: format.name.uppercased()), nil, "spellings are lower case")
        }
        expectEqual(OutputFormat(spelling: "yaml"), nil)
    }

    /// What each command prints: the formats its report offers are those the reference's table
    /// gives a cell that is not "refused".
    @Test func eachReportOffersTheFormatsTheReferenceLists() throws {
        let reports: [String: any Report.Type] = [
            "init": InitReport.self, "build": BuildReport.self, "migrate": MigrateReport.self,
            "status": StatusReport.self,
            "check-upgrade": UpgradeReport.self, "inspect STORE": StoreSummary.self,
            "inspect STORE TABLE": Tabular.self,
            "diff A B": DiffReport.self, "verify STORE": VerifyReport.self,
            "new-migration": NewMigrationReport.self, "export-migrations": ExportReport.self,
        ]
        let commands = try Self.reference().commands
        expectEqual(Set(commands.map(\.command)), Set(reports.keys), "the reference's table has a row per report")
        for (command, prints) in commands {
            guard let report = reports[command] else { continue }
            expectEqual(Set(OutputFormat.formats(for: report).map(\.name)), prints, "\(command)")
        }
        // Errors print in the formats that have a view for them (json, github) or as text.
        #expect(OutputFormat.formats(for: DiagnosticsReport.self).contains(.human))
    }

    @Test func aFormatAReportDoesNotOfferIsRefusedNamingThoseItDoes() throws {
        #expect(throws: FormatRefusal.self) { try OutputFormat.named("csv", for: BuildReport.self) }
        do {
            _ = try OutputFormat.named("markdown", for: UpgradeReport.self)
            Issue.record("check-upgrade has no rows")
        } catch {
            expectEqual(
                error.description,
                "--format markdown is not one this command prints; it prints human, json, github"
            )
        }
        do {
            _ = try OutputFormat.named("yaml", for: Tabular.self)
            Issue.record("yaml is no format")
        } catch {
            expectEqual(
                error.description,
                "--format yaml is not a format; this command prints human, json, csv, markdown"
            )
        }
        #expect(throws: FormatRefusal.self) { try OutputFormat.named("JSON", for: Tabular.self) }
        do {
            _ = try OutputFormat.named("", for: StatusReport.self)
            Issue.record("an empty name is no format")
        } catch {
            #expect(
                error.description.hasPrefix(
                    "--format '' is not a format; this command prints human, json, csv, markdown, github"))
        }
        try expectEqual(OutputFormat.named("table", for: Tabular.self), .human)
        // Handed a report anyway, a format it does not offer prints nothing.
        let build = BuildReport(output: "seed.sqlite", .checked(upToDate: true))
        expectEqual(OutputFormat.csv.rendered(build), "")
    }

    /// Real reports of a real store, in every format each offers: text for people, a JSON
    /// document that parses, rows under the same header in csv and markdown.
    @Test func realReportsRenderInEveryFormatTheyOffer() throws {
        let project = try TemporaryProject()
        _ = try project.buildSeed()
        try project.database("build/seed.sqlite").write { db in
            try db.execute(sql: "UPDATE books SET price = 2000 WHERE title = 'The second book'")
        }
        let manifest = try project.manifest()
        let queue = try project.database("build/seed.sqlite")
        let summary = try queue.read { db in try StoreInspector.summary(db, path: "seed.sqlite") }
        let rows = try queue.read { db in try StoreInspector.rows(db, table: "books") }
        let findings = try queue.read { db in try StoreVerifier.verify(db, manifest: manifest) }
        let verify = VerifyReport(store: "seed.sqlite", findings: findings, integrity: .full, checkedRules: true)
        let diagnostics = DiagnosticsReport([
            Diagnostic(file: "seeds/data/books.csv", line: 3, column: 2, code: .typeMismatch, message: "not a number")
        ])
        func check(_ report: some Report, header: String?) throws {
            for format in OutputFormat.all {
                let text = format.rendered(report)
                guard format.renders(type(of: report)) else {
                    #expect(text.isEmpty, "\(format)")
                    continue
                }
                switch format {
                case .json: #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil, "\(text)")
                case .csv: #expect(text.hasPrefix((header ?? "") + "\r\n"), "\(text)")
                case .markdown:
                    #expect(
                        text.hasPrefix("| " + (header ?? "").replacingOccurrences(of: ",", with: " | ") + " |\n"),
                        "\(text)")
                default: break
                }
            }
        }
        try check(summary, header: "table,rows")
        try check(rows, header: "id,title,price,category_id")
        try check(verify, header: "table,key,column,code,message")
        try check(diagnostics, header: nil)
        let initialized = InitReport(
            folder: "app", written: [.init(path: "app/seeds/seedkit.yml", purpose: "the manifest")],
            next: ["cd app", "seedkit build   # writes build/seed.sqlite"])
        try check(initialized, header: nil)
        expectEqual(
            OutputFormat.human.rendered(initialized),
            "wrote app/seeds/seedkit.yml  the manifest\nnext:\n  cd app\n  seedkit build   # writes build/seed.sqlite\n"
        )
        expectEqual(
            OutputFormat.json.rendered(initialized),
            """
            {
              "folder": "app",
              "written": [
                {
                  "path": "app/seeds/seedkit.yml",
                  "purpose": "the manifest"
                }
              ],
              "next": [
                "cd app",
                "seedkit build   # writes build/seed.sqlite"
              ]
            }

            """)
        expectEqual(
            OutputFormat.human.rendered(verify),
            """
            seed.sqlite: books[The second book].price: price 2000 is greater than the maximum 1000 [\(DiagnosticCode.numberTooLarge.rawValue)]
            seed.sqlite: 1 problem

            """)
        #expect(
            OutputFormat.github.rendered(verify).hasPrefix(
                "::error file=seed.sqlite,title=seedkit \(DiagnosticCode.numberTooLarge.rawValue)::books[The second book].price: price 2000"
            ))
        // Human diagnostics are for people, on stderr; json and github ones on stdout, where tools read them.
        var stderr = ""
        OutputFormat.human.render(
            diagnostics, to: ReportOutput(write: { _ in Issue.record("stdout") }, note: { stderr += $0 }))
        expectEqual(stderr, "seeds/data/books.csv:3:2: error: not a number [\(DiagnosticCode.typeMismatch.rawValue)]\n")
        expectEqual(
            OutputFormat.github.rendered(diagnostics),
            "::error file=seeds/data/books.csv,line=3,col=2,title=seedkit \(DiagnosticCode.typeMismatch.rawValue)::not a number [\(DiagnosticCode.typeMismatch.rawValue)]\n"
        )
    }

    /// Annotations are text for people too (a CI log shows colours, a terminal acts on escapes):
    /// what a store names is escaped in them as in the human lines, in every report.
    @Test func annotationsEscapeWhatAStoreHoldsAsTheHumanLinesDo() throws {
        let project = try TemporaryProject(bookStore: false)
        let queue = try project.database("hostile.sqlite")
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "CREATE TABLE p (id INTEGER PRIMARY KEY)")
            try db.execute(
                sql: "CREATE TABLE \"c\u{1B}[31m\r\" (id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p(id))")
            try db.execute(sql: "INSERT INTO \"c\u{1B}[31m\r\" VALUES (1, 99)")
        }
        let findings = try queue.read { db in try StoreVerifier.verify(db, manifest: nil) }
        expectEqual(findings.count, 1)
        let report = VerifyReport(
            store: "hostile\u{7}.sqlite", findings: findings, integrity: .full, checkedRules: false)
        let annotated = OutputFormat.github.rendered(report)
        #expect(!annotated.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(annotated.debugDescription)")
        #expect(
            annotated.hasPrefix(
                "::error file=hostile\\x07.sqlite,title=seedkit 2030::c\\x1b[31m\\r[1]: references a missing row of p [2030]\n"
            ), "\(annotated.debugDescription)")
        #expect(OutputFormat.human.rendered(report).hasSuffix("hostile\\x07.sqlite: 1 problem\n"))
        let diagnostics = DiagnosticsReport([
            Diagnostic(file: "a\u{1B}.csv", code: .typeMismatch, message: "x\u{1B}[2J\ny")
        ])
        expectEqual(
            OutputFormat.github.rendered(diagnostics),
            "::error file=a\\x1b.csv,title=seedkit 2010::x\\x1b[2J%0Ay [2010]\n")
    }

    /// A new format is one value: declared here, it prints every report that has rows, and no command changes.
    @Test func aFormatDeclaredOnceRendersEveryReportWithRows() throws {
        let tsv = OutputFormat(name: "tsv", view: .rows, isForPeople: false) { report, output in
            guard let table = report.tabular else { return }
            output.write(
                ([table.columns] + table.rows.map { $0.map { $0?.description ?? "" } }).map {
                    $0.joined(separator: "\t")
                }.joined(
                    separator: "\n") + "\n")
        }
        let status = StatusReport(store: "user.sqlite", folder: "migrations", states: [])
        expectEqual(tsv.rendered(status), "migration\tstate\tdetail\n")
        expectEqual(tsv.rendered(BuildReport(output: "seed.sqlite", .checked(upToDate: false))), "")
    }
}
