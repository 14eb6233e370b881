import Foundation
import GRDB

/// The database layout, versioned by GRDB migrations from the first release. Only ciphertext and
/// the few clear identifiers listed here ever reach the file:
/// - note ids (so an abbreviated id can be resolved without the key), revisions,
/// - template reader identities and finger names, setting names.
enum VaultSchema {
    static let formatVersion: Int64 = 1

    /// The tables of migration "v1", one statement each, in the exact text SQLite keeps in
    /// sqlite_master (it stores "CREATE TABLE name" and the rest of the statement verbatim), so
    /// `inspect` can compare the schema with them. Never edit one: vaults in use hold this text.
    ///
    /// Note headers (title, tags, dates) and bodies are sealed in separate tables so a listing
    /// reads and decrypts only the small headers.
    static let tablesV1: [(name: String, sql: String)] = [
        (
            "meta",
            """
            CREATE TABLE meta (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                format_version INTEGER NOT NULL,
                store_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                key_check BLOB NOT NULL,
                slot_mac BLOB NOT NULL,
                manifest BLOB NOT NULL
            )
            """
        ),
        (
            "slots",
            """
            CREATE TABLE slots (
                name TEXT PRIMARY KEY NOT NULL,
                parameters BLOB NOT NULL,
                wrapped BLOB NOT NULL
            )
            """
        ),
        (
            "notes",
            """
            CREATE TABLE notes (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                revision INTEGER NOT NULL,
                header BLOB NOT NULL
            )
            """
        ),
        (
            "note_bodies",
            """
            CREATE TABLE note_bodies (
                note INTEGER PRIMARY KEY,
                body BLOB NOT NULL
            )
            """
        ),
        (
            "templates",
            """
            CREATE TABLE templates (
                reader TEXT NOT NULL,
                finger TEXT NOT NULL,
                revision INTEGER NOT NULL,
                sealed BLOB NOT NULL,
                PRIMARY KEY (reader, finger)
            )
            """
        ),
        (
            "settings",
            """
            CREATE TABLE settings (
                key TEXT PRIMARY KEY NOT NULL,
                revision INTEGER NOT NULL,
                sealed BLOB NOT NULL
            )
            """
        ),
    ]

    /// Migration "v2": an index holding every note's (id, revision), so the bucket check that
    /// every single-note read, update and delete runs against the manifest reads the index alone
    /// rather than one table row per note of the bucket (note update at 100k notes went from 3.7
    /// to 9.5 ms without it). Exact text as SQLite keeps it, like `tablesV1`; never edit it.
    static let indexesV2: [(name: String, table: String, sql: String)] = [
        ("notes_id_revision", "notes", "CREATE INDEX notes_id_revision ON notes (id, revision)")
    ]

    static let migrationV1 = "v1"
    static let migrationV2 = "v2-notes-id-revision"
    /// Migration "v3-mode" (system mode, issue 14): the vault's mode, `user` for every vault made
    /// before it. Never edit: SQLite keeps this text appended to meta's statement.
    static let migrationV3 = "v3-mode"
    static let modeColumn = "mode TEXT NOT NULL DEFAULT 'user'"

    /// meta's statement as SQLite rewrites it after `ALTER TABLE meta ADD COLUMN` (the new column
    /// goes in before the closing parenthesis).
    static var metaSQLWithMode: String {
        let v1 = tablesV1.first { $0.name == "meta" }!.sql
        return String(v1.dropLast()) + ", " + modeColumn + ")"
    }

    /// Migration "v4-trash-revisions" (issue 28): notes removed with `notes rm` wait in
    /// `note_trash`, and each note's earlier revisions are kept in `note_revisions`. Both hold a
    /// note's sealed header and body exactly as the note row held them (bound to id and revision),
    /// so moving a row between tables never re-seals it, and the manifest's own tallies say which
    /// rows belong in which table. Exact text as SQLite keeps it; never edit.
    static let migrationV4 = "v4-trash-revisions"
    static let tablesV4: [(name: String, sql: String)] = [
        (
            "note_trash",
            """
            CREATE TABLE note_trash (
                id TEXT PRIMARY KEY NOT NULL,
                revision INTEGER NOT NULL,
                deleted INTEGER NOT NULL,
                header BLOB NOT NULL,
                body BLOB NOT NULL
            )
            """
        ),
        (
            "note_revisions",
            """
            CREATE TABLE note_revisions (
                id TEXT NOT NULL,
                revision INTEGER NOT NULL,
                header BLOB NOT NULL,
                body BLOB NOT NULL,
                PRIMARY KEY (id, revision)
            )
            """
        ),
    ]

    /// Migration "v5-sync" (issue 42): what sync remembers on this machine. `sync_notes` holds, per
    /// note id, the note's revision when sync last settled it (NULL: the note was absent) and a
    /// sealed entry (the versions it was merged up to), so a changed note is found by comparing
    /// revisions without opening anything; `sync_state` holds the sealed device state (device id,
    /// marks, records not yet pushed). Neither is counted by the manifest: see `Vault+Sync.swift`.
    /// Exact text as SQLite keeps it; never edit.
    static let migrationV5 = "v5-sync"
    static let tablesV5: [(name: String, sql: String)] = [
        (
            "sync_notes",
            """
            CREATE TABLE sync_notes (
                id TEXT PRIMARY KEY NOT NULL,
                revision INTEGER,
                sealed BLOB NOT NULL
            )
            """
        ),
        (
            "sync_state",
            """
            CREATE TABLE sync_state (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                sealed BLOB NOT NULL
            )
            """
        ),
    ]

    /// Every migration, in order: the migrator applies them, and `inspect` compares a vault's
    /// record with their identifiers.
    static let migrations: [(identifier: String, apply: @Sendable (Database) throws -> Void)] = [
        (migrationV1, { db in for table in tablesV1 { try db.execute(sql: table.sql) } }),
        (migrationV2, { db in for index in indexesV2 { try db.execute(sql: index.sql) } }),
        (migrationV3, { db in try db.execute(sql: "ALTER TABLE meta ADD COLUMN " + modeColumn) }),
        (migrationV4, { db in for table in tablesV4 { try db.execute(sql: table.sql) } }),
        (migrationV5, { db in for table in tablesV5 { try db.execute(sql: table.sql) } }),
    ]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations { migrator.registerMigration(migration.identifier, migrate: migration.apply) }
        return migrator
    }

    enum State: Equatable {
        /// No tables at all: a file we may turn into a vault.
        case empty
        /// Our schema but no meta row: an interrupted creation, safe to create again.
        case incomplete
        /// A vault, maybe written before the last migrations (`upgrade` applies them): its schema
        /// is exactly what the migrations it records create.
        case vault(needsUpgrade: Bool)

        var isVault: Bool {
            if case .vault = self { true } else { false }
        }
    }

    /// Applies the migrations a vault written by an older fingerlock lacks (each one its own
    /// transaction), under the process lock, after `inspect` found its schema exactly as its
    /// recorded migrations made it. They add an index, the mode column (`user`, which the
    /// slot-table MAC of a user-mode vault does not include) and the empty trash and revision
    /// tables (an older manifest counts none): no sealed row changes.
    static func upgrade(_ queue: DatabaseQueue, files: VaultFiles, configuration: VaultConfiguration) throws {
        let lock = try files.acquireLock(timeout: configuration.lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        try migrator.migrate(queue)
    }

    /// `inspect`, for reading an existing vault: an empty or half-created database is not one yet.
    static func inspectVault(_ db: Database, path: String) throws -> State {
        let state = try inspect(db, path: path)
        guard state.isVault else {
            throw VaultError(.notAVault, "The vault was never fully set up; set a passcode to create it.")
        }
        return state
    }

    /// Refuses foreign databases, newer formats and schemas with anything added, changed or
    /// missing, before anything is written.
    static func inspect(_ db: Database, path: String) throws -> State {
        let objects = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master").map {
            SchemaObject(type: $0.text(0) ?? "", name: $0.text(1) ?? "", table: $0.text(2) ?? "", sql: $0.text(3))
        }
        if objects.isEmpty { return .empty }
        let tables = Set(objects.lazy.filter { $0.type == "table" }.map(\.name))
        guard tables.contains("meta"), tables.contains("grdb_migrations") else {
            throw VaultError(.notAVault, "\(path) is not a fingerlock vault.")
        }
        // The migrations the vault records, read once (GRDB's migrator asks the database again for
        // each question, and this runs at every open).
        let recorded = try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
        let known = Set(migrations.map(\.identifier))
        guard recorded.isSubset(of: known) else {
            throw VaultError(
                .unsupportedFormat, "This vault was written by a newer fingerlock; upgrade fingerlock to open it.")
        }
        try SchemaObject.check(objects, applied: recorded)
        guard recorded.contains(migrationV1) else { return .incomplete }
        let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM meta") ?? 0
        return rows == 0 ? .incomplete : .vault(needsUpgrade: recorded != known)
    }
}

/// The single meta row: format, store id, kind, mode, key-check value, slot-table MAC, sealed manifest.
struct MetaRow: Sendable {
    var formatVersion: Int64
    var storeID: UUID
    var kind: VaultKind
    var mode: VaultMode = .user
    var keyCheck: Data
    var slotMAC: Data
    var manifest: Data

    static func read(_ db: Database) throws -> MetaRow {
        // One statement, its columns found by name: a vault not yet upgraded (a backup being staged,
        // a store id read) has no mode column, and asking SQLite for the table's columns first cost a
        // PRAGMA and a second SELECT at every open.
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM meta WHERE singleton = 1") else {
            throw VaultError(.notAVault, "The vault was never fully set up; set a passcode to create it.")
        }
        let names = Array(row.columnNames)
        func text(_ name: String) -> String? { names.firstIndex(of: name).flatMap(row.text) }
        func blob(_ name: String) -> Data? { names.firstIndex(of: name).flatMap(row.blob) }
        guard let version = names.firstIndex(of: "format_version").flatMap(row.integer) else {
            throw VaultError.corrupt("header", "no format version")
        }
        guard version == VaultSchema.formatVersion else {
            throw VaultError(
                .unsupportedFormat,
                "This vault has format version \(version); this fingerlock reads version \(VaultSchema.formatVersion).")
        }
        guard let storeText = text("store_id"), let storeID = UUID(uuidString: storeText),
            storeID.storageKey == storeText
        else { throw VaultError.tampered("header") }
        guard let kindText = text("kind"), let kind = VaultKind(rawValue: kindText) else {
            throw VaultError.tampered("slot table")
        }
        guard let keyCheck = blob("key_check"), let slotMAC = blob("slot_mac"), let manifest = blob("manifest")
        else { throw VaultError.corrupt("header", "missing fields") }
        var mode = VaultMode.user
        if names.contains("mode") {
            guard let text = text("mode"), let parsed = VaultMode(rawValue: text) else { throw VaultError.tampered("slot table") }
            mode = parsed
        }
        return MetaRow(
            formatVersion: version, storeID: storeID, kind: kind, mode: mode, keyCheck: keyCheck, slotMAC: slotMAC,
            manifest: manifest)
    }

    func insert(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO meta (singleton, format_version, store_id, kind, mode, key_check, slot_mac, manifest)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [formatVersion, storeID.storageKey, kind.rawValue, mode.rawValue, keyCheck, slotMAC, manifest])
    }
}

extension KeySlot {
    static func readAll(_ db: Database) throws -> [KeySlot] {
        try Row.fetchAll(db, sql: "SELECT name, parameters, wrapped FROM slots").map { row in
            guard let name = row.text(0), let parameters = row.blob(1), let wrapped = row.blob(2) else {
                throw VaultError.tampered("slot table")
            }
            return KeySlot(name: name, parameters: Array(parameters), wrapped: wrapped)
        }
    }

    static func replaceAll(_ slots: [KeySlot], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM slots")
        for slot in slots {
            try db.execute(
                sql: "INSERT INTO slots (name, parameters, wrapped) VALUES (?, ?, ?)",
                arguments: [slot.name, Data(slot.parameters), slot.wrapped])
        }
    }
}
