import Foundation

/// A small project in the shape of Debian's iso-codes: countries, and ISO 3166-2 subdivisions
/// that reference their country and, through `parent_id: subdivisions.code`, each other.
public enum IsoCodes {
    /// The manifest: countries keyed by alpha-2 code, subdivisions by code, refs to both.
    public static let manifest = """
        schema: schema.sql
        output: ../build/seed.sqlite
        tables:
          countries:
            file: data/countries.csv
            key: name
            rules:
              name: { required: true, max_length: 40 }
          subdivisions:
            file: data/subdivisions.csv
            key: code
            refs:
              country_id: countries.alpha_2
              parent_id: subdivisions.code
            rules:
              code: { pattern: "^[A-Z]{2}-[0-9A-Z]{1,4}$" }
              type: { one_of: [County, Municipality, Province, Region] }

        """
    /// The schema: `countries`, and `subdivisions` referring to a country and to a parent
    /// subdivision.
    public static let schema = """
        CREATE TABLE countries (
            id INTEGER PRIMARY KEY,
            alpha_2 TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL UNIQUE,
            official_name TEXT
        );
        CREATE TABLE subdivisions (
            id INTEGER PRIMARY KEY,
            code TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            type TEXT NOT NULL,
            country_id INTEGER NOT NULL REFERENCES countries(id),
            parent_id INTEGER REFERENCES subdivisions(id)
        );

        """
    /// A countries fixture (CSV) of a few countries.
    public static let countries = """
        alpha_2,name,official_name
        NO,Norway,Kingdom of Norway
        TR,Turkey,Republic of Turkey

        """
    /// A subdivisions fixture (CSV) whose rows refer to their country and parent subdivision.
    public static let subdivisions = """
        code,name,type,country_id,parent_id
        NO-03,Oslo,County,NO,
        NO-0301,Oslo kommune,Municipality,NO,NO-03
        NO-50,Trøndelag,County,NO,
        TR-06,Ankara,Province,TR,

        """

    /// The project, with no migrations yet.
    public static func project() throws -> TemporaryProject {
        let project = try TemporaryProject(bookStore: false)
        try project.write("seeds/seedkit.yml", manifest)
        try project.write("seeds/schema.sql", schema)
        try project.write("seeds/data/countries.csv", countries)
        try project.write("seeds/data/subdivisions.csv", subdivisions)
        return project
    }

    /// The project with its seed built (no migrations) and copied to `user.sqlite`.
    public static func projectWithUserStore() throws -> TemporaryProject {
        let project = try project()
        let build = try project.seedkit("build", "--migrations", "none")
        guard build.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(build)"])
        }
        try FileManager.default.copyItem(atPath: project.path("build/seed.sqlite"), toPath: project.path("user.sqlite"))
        return project
    }
}
