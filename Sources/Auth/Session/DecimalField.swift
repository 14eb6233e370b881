/// Parses the decimal numbers procfs prints, straight from UTF-8 bytes: this runs on every
/// unlock, and going through `String` costs more than the file read.
enum DecimalField {
    static func parse<Number: FixedWidthInteger>(_ text: String, as type: Number.Type = Number.self) -> Number? {
        var text = text
        return text.withUTF8 { parse($0[...], as: type) }
    }

    /// `[spaces]['-']digits[spaces or newline]`, nil if anything else or out of range.
    static func parse<Number: FixedWidthInteger>(_ bytes: some BidirectionalCollection<UInt8>, as type: Number.Type = Number.self) -> Number? {
        var rest = bytes[...].drop { $0 == UInt8(ascii: " ") }
        while let last = rest.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\n") { rest = rest.dropLast() }
        let negative = rest.first == UInt8(ascii: "-")
        if negative { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        var value: Number = 0
        for byte in rest {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let digit = Number(byte - UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAgain) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !overflowAgain else { return nil }
            value = sum
        }
        return value
    }
}
