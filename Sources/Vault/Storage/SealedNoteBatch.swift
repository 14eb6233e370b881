internal import GRDBSQLite

/// Note rows as a scan reads them from SQLite, still sealed, copied into one buffer: a row costs a
/// copy of its bytes and no allocation of its own, where a `String` id and two `Data` blobs per row
/// made reading the table the slowest part of a listing.
///
/// Only the statement's own values are copied; whether they are what a note row must hold (a text
/// id of ours, a positive revision, blobs) is checked by whoever opens the row, so the first bad
/// row in row order is what a scan reports.
struct SealedNoteBatch: Sendable {
    private var bytes: [UInt8] = []
    private var records: [Record] = []

    /// Where one column's value lies in `bytes`; `count` is -1 when the value was NULL or of
    /// another type than the column must have.
    private struct Span: Sendable {
        var start: Int
        var count: Int
    }

    private struct Record: Sendable {
        var id: Span
        var revision: Int64
        var header: Span
        var body: Span
    }

    init(rowCapacity: Int, byteCapacity: Int) {
        records.reserveCapacity(rowCapacity)
        bytes.reserveCapacity(byteCapacity)
    }

    var count: Int { records.count }
    var byteCount: Int { bytes.count }
    var isEmpty: Bool { records.isEmpty }

    /// Copies the current row of `statement`: id (TEXT), revision (INTEGER), header (BLOB) and,
    /// when the statement has a fourth column, the body (BLOB).
    mutating func appendCurrentRow(of statement: OpaquePointer) {
        let id = copy(statement, column: 0, type: SQLITE_TEXT)
        let revision = sqlite3_column_type(statement, 1) == SQLITE_INTEGER ? sqlite3_column_int64(statement, 1) : 0
        let header = copy(statement, column: 2, type: SQLITE_BLOB)
        let body = sqlite3_column_count(statement) > 3 ? copy(statement, column: 3, type: SQLITE_BLOB) : Span(start: 0, count: -1)
        records.append(Record(id: id, revision: revision, header: header, body: body))
    }

    private mutating func copy(_ statement: OpaquePointer, column: Int32, type: Int32) -> Span {
        guard sqlite3_column_type(statement, column) == type else { return Span(start: 0, count: -1) }
        // The pointer first, then the size: SQLite's documented order (the size of a converted value
        // is only known after the conversion).
        let pointer =
            type == SQLITE_TEXT
            ? UnsafeRawPointer(sqlite3_column_text(statement, column)) : sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        let start = bytes.count
        guard count > 0 else { return Span(start: start, count: 0) }
        // No pointer for a non-empty value: SQLite ran out of memory converting it. Counted as a
        // value that is not there, never as bytes that were not copied.
        guard let pointer else { return Span(start: 0, count: -1) }
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
        return Span(start: start, count: count)
    }

    /// Calls `visit` with rows `range` in order, as views into the batch (valid during the call only).
    func forEachRow(in range: Range<Int>, _ visit: (SealedNoteRow) -> Bool) {
        bytes.withUnsafeBytes { buffer in
            func view(_ span: Span) -> UnsafeRawBufferPointer? {
                span.count < 0 ? nil : UnsafeRawBufferPointer(rebasing: buffer[span.start..<(span.start + span.count)])
            }
            for index in range {
                let record = records[index]
                let row = SealedNoteRow(
                    index: index, id: view(record.id), revision: record.revision > 0 ? UInt64(record.revision) : nil,
                    header: view(record.header), body: view(record.body))
                guard visit(row) else { return }
            }
        }
    }
}

/// One note row of a scan, still sealed: views into its batch, valid only during the call that is
/// given it. nil stands for a value that is NULL or of the wrong type (or, for the revision, not
/// positive): tampering, reported by whoever opens the row.
struct SealedNoteRow {
    /// The row's position in its batch.
    let index: Int
    /// The stored id's UTF-8 bytes.
    let id: UnsafeRawBufferPointer?
    let revision: UInt64?
    let header: UnsafeRawBufferPointer?
    let body: UnsafeRawBufferPointer?
}
