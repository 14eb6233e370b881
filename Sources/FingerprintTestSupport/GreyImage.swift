#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An 8-bit grey image, as libfprint's `virtual_image` driver takes it.
public struct GreyImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Row-major, one byte per pixel.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "pixel count must be width × height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Reads a binary (`P5`) PGM file with a maximum value below 256.
    public init(contentsOfPGM url: URL) throws {
        try self.init(pgm: Data(contentsOf: url))
    }

    /// Parses a binary (`P5`) PGM with a maximum value below 256.
    public init(pgm data: Data) throws {
        let bytes = [UInt8](data)
        var index = 0
        func skipSpaceAndComments() {
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "#") {
                    while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
                } else if [9, 10, 13, 32].contains(bytes[index]) {
                    index += 1
                } else {
                    return
                }
            }
        }
        func token() throws -> String {
            skipSpaceAndComments()
            let start = index
            while index < bytes.count && ![9, 10, 13, 32].contains(bytes[index]) { index += 1 }
            guard index > start else { throw VirtualDeviceError.badImage("the header ends early") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        guard try token() == "P5" else { throw VirtualDeviceError.badImage("the magic number is not P5") }
        guard let width = Int(try token()), let height = Int(try token()), let maxValue = Int(try token()),
            width > 0, height > 0
        else { throw VirtualDeviceError.badImage("the size is not valid") }
        guard maxValue < 256 else { throw VirtualDeviceError.badImage("only 8-bit images are supported") }
        index += 1  // exactly one whitespace byte ends the header
        guard bytes.count - index >= width * height else {
            throw VirtualDeviceError.badImage("\(width)×\(height) pixels expected, the file is shorter")
        }
        self.init(width: width, height: height, pixels: Array(bytes[index..<(index + width * height)]))
    }

    /// The header libfprint expects (native-endian int32 width and height) followed by the pixels.
    var wireBytes: [UInt8] {
        VirtualImageFeeder.header(Int32(width), Int32(height)) + pixels
    }
}
