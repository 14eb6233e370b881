import FingerlockTestSupport
import Testing
import Vault

/// Strings read from sealed records: ASCII and other valid UTF-8 come back as written; invalid
/// UTF-8 is refused (nil), whichever path the reader takes.
@Suite(.timed) struct ByteReaderStringTests {
    func read(_ bytes: [UInt8]) -> String? {
        var writer = ByteWriter()
        writer.field(bytes)
        var reader = ByteReader(writer.bytes)
        return reader.string()
    }

    @Test func validStringsRoundTrip() {
        for text in ["", "plain title 42", "Café ☕ 日本語", "tag\u{7f}", String(repeating: "ü", count: 300)] {
            var writer = ByteWriter()
            writer.string(text)
            var reader = ByteReader(writer.bytes)
            #expect(reader.string() == text)
            #expect(reader.isAtEnd)
        }
    }

    @Test func invalidUTF8IsRefused() {
        for bytes: [UInt8] in [[0x80], [0x61, 0xff, 0x62], [0xc3], [0xe6, 0x97], [0xed, 0xa0, 0x80], [0xc0, 0xaf]] {
            #expect(read(bytes) == nil, "\(bytes)")
        }
    }
}
