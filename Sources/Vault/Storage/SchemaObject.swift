/// One row of sqlite_master. The vault's schema must be exactly what its migrations create: a
/// trigger, view, index or table added by someone else could copy data or change rows as we write
/// them, and a table whose SQL was edited (through `writable_schema`) could change what a column
/// means.
struct SchemaObject: Hashable, Sendable {
    var type: String
    var name: String
    var table: String
    var sql: String?

    private static func table(_ name: String, _ sql: String) -> SchemaObject {
        SchemaObject(type: "table", name: name, table: name, sql: sql)
    }

    /// The index SQLite makes for a PRIMARY KEY or UNIQUE constraint (it has no SQL text).
    private static func autoindex(_ table: String) -> SchemaObject {
        SchemaObject(type: "index", name: "sqlite_autoindex_\(table)_1", table: table, sql: nil)
    }

    /// What migration "v1" creates: our tables, their constraint indexes, and GRDB's record of
    /// applied migrations.
    static let expectedV1: [SchemaObject] = expectedV1(withMode: false)

    /// Migration "v3-mode" rewrites meta's statement (SQLite appends the added column to it).
    static func expectedV1(withMode: Bool) -> [SchemaObject] {
        VaultSchema.tablesV1.map {
            table($0.name, withMode && $0.name == "meta" ? VaultSchema.metaSQLWithMode : $0.sql)
        }
            + ["slots", "notes", "templates", "settings"].map(autoindex)
            + [
                table("grdb_migrations", "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)"),
                autoindex("grdb_migrations"),
            ]
    }

    /// What migration "v2" adds.
    static let expectedV2: [SchemaObject] = VaultSchema.indexesV2.map {
        SchemaObject(type: "index", name: $0.name, table: $0.table, sql: $0.sql)
    }

    /// What migration "v4-trash-revisions" adds.
    static let expectedV4: [SchemaObject] =
        VaultSchema.tablesV4.map { table($0.name, $0.sql) } + VaultSchema.tablesV4.map { autoindex($0.name) }

    /// What migration "v5-sync" adds (`sync_state`'s INTEGER PRIMARY KEY is the rowid: no index).
    static let expectedV5: [SchemaObject] =
        VaultSchema.tablesV5.map { table($0.name, $0.sql) } + [autoindex("sync_notes")]

    /// Every object the migrations create, for a vault that has them all.
    static var expected: [SchemaObject] { expectedV1(withMode: true) + expectedV2 + expectedV4 + expectedV5 }

    /// Tables SQLite itself may add (ANALYZE, `PRAGMA optimize`, AUTOINCREMENT): harmless
    /// bookkeeping, allowed only in exactly the form SQLite creates.
    static let sqliteInternal: Set<SchemaObject> = [
        table("sqlite_stat1", "CREATE TABLE sqlite_stat1(tbl,idx,stat)"),
        table("sqlite_stat4", "CREATE TABLE sqlite_stat4(tbl,idx,neq,nlt,ndlt,sample)"),
        table("sqlite_sequence", "CREATE TABLE sqlite_sequence(name,seq)"),
    ]

    /// Throws `.tampered("database schema")` naming the first object that the migrations recorded
    /// in `applied` did not create (or that appears twice), and the first one they created that is
    /// missing. Before "v1" is recorded (an interrupted creation) objects may be missing, never added.
    static func check(_ objects: [SchemaObject], applied: Set<String>) throws(VaultError) {
        let v1 = expectedV1(withMode: applied.contains(VaultSchema.migrationV3))
        let expected =
            applied.contains(VaultSchema.migrationV1)
            ? v1 + (applied.contains(VaultSchema.migrationV2) ? expectedV2 : [])
                + (applied.contains(VaultSchema.migrationV4) ? expectedV4 : [])
                + (applied.contains(VaultSchema.migrationV5) ? expectedV5 : []) : v1
        var remaining = Set(expected)
        for object in objects {
            if remaining.remove(object) != nil || sqliteInternal.contains(object) { continue }
            let changed = (Self.expected + expectedV1).contains { $0.type == object.type && $0.name == object.name }
            throw tampered("has \(changed ? "a changed" : "an unexpected") \(object.described)")
        }
        if applied.contains(VaultSchema.migrationV1), let missing = expected.first(where: remaining.contains) {
            throw tampered("is missing its \(missing.described)")
        }
    }

    /// Names are quoted and escaped (they are the attacker's text), so the message stays one line.
    private var described: String {
        let kind = ["table", "index", "view", "trigger"].contains(type) ? type : "object"
        let what = "\(kind) \(Self.quoted(name))"
        return type == "table" || name == table ? what : "\(what) on \(Self.quoted(table))"
    }

    private static func quoted(_ text: String) -> String { String(reflecting: String(text.prefix(80))) }

    private static func tampered(_ finding: String) -> VaultError {
        VaultError(
            .tampered, part: "database schema",
            "The vault's database \(finding): it was changed outside fingerlock. Nothing was read from it; "
                + "restore a backup.")
    }
}
