import FingerlockTestSupport
import Foundation
import Testing

/// The committed rules files pass the strict parser, and the parser really rejects malformed rules.
@Suite(.timed)
struct RulesSyntaxTests {
    @Test(
        "the committed rules files are well formed",
        arguments: [RepoPaths.uaccessRules, RepoPaths.plugdevRules, RepoPaths.systemRules])
    func committedFilesParse(file: URL) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        let rules = try UdevRulesParser.parse(text)
        #expect(rules.count > 100)
        // Every line is a comment, blank, or a rule the parser returned.
        let ruleLines = Set(rules.map(\.line))
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            #expect(line.isEmpty || line.hasPrefix("#") || ruleLines.contains(index + 1), "line \(index + 1)")
        }
        // The device rules only run for USB devices being added or changed.
        #expect(
            rules[0].pairs == [
                .init(key: "ACTION", op: "==", value: "remove"), .init(key: "GOTO", op: "=", value: "fingerlock_end"),
            ])
        #expect(rules[1].value("SUBSYSTEM") == "usb")
        #expect(rules[2].value("ENV", "DEVTYPE") == "usb_device")
        #expect(rules.last?.pairs == [.init(key: "LABEL", op: "=", value: "fingerlock_end")])
        for rule in rules.dropFirst(3).dropLast() {
            #expect(rule.value("ATTRS", "idVendor")?.wholeMatch(of: /[0-9a-f]{4}/) != nil, "line \(rule.line)")
            #expect(rule.value("ATTRS", "idProduct")?.wholeMatch(of: /[0-9a-f]{4}/) != nil, "line \(rule.line)")
        }
    }

    @Test("the rules file sorts before 73-seat-late.rules, which applies the uaccess tag")
    func sortsBeforeSeatLate() {
        #expect(RepoPaths.uaccessRules.lastPathComponent < "73-seat-late.rules")
        #expect(RepoPaths.plugdevRules.lastPathComponent < "73-seat-late.rules")
        #expect(RepoPaths.systemRules.lastPathComponent < "73-seat-late.rules")
    }

    @Test("the parser reads keys, attributes, operators and values")
    func parsesPairs() throws {
        let rules = try UdevRulesParser.parse(
            """
            # comment
              # indented comment

            SUBSYSTEM=="usb", ATTRS{idVendor}=="06cb",ENV{ID_X}!="1" , TAG+="uaccess", GROUP="plugdev", MODE="0660"
            """)
        #expect(rules.count == 1)
        #expect(rules[0].line == 4)
        #expect(
            rules[0].pairs == [
                .init(key: "SUBSYSTEM", op: "==", value: "usb"),
                .init(key: "ATTRS", attribute: "idVendor", op: "==", value: "06cb"),
                .init(key: "ENV", attribute: "ID_X", op: "!=", value: "1"),
                .init(key: "TAG", op: "+=", value: "uaccess"),
                .init(key: "GROUP", op: "=", value: "plugdev"),
                .init(key: "MODE", op: "=", value: "0660"),
            ])
    }

    @Test(
        "the parser rejects malformed rules",
        arguments: [
            ("FOO==\"x\"", "unknown key 'FOO'"),
            ("SUBSYSTEM=\"usb\"", "operator = not allowed with SUBSYSTEM"),
            ("TAG==uaccess", "must be in double quotes"),
            ("TAG+=\"uaccess", "unterminated value"),
            ("SUBSYSTEM==\"usb\" TAG+=\"uaccess\"", "expected ','"),
            ("SUBSYSTEM==\"usb\",", "trailing ','"),
            ("ATTRS==\"x\"", "ATTRS needs {attribute}"),
            ("ATTRS{idVendor==\"x\"", "unterminated '{' after ATTRS"),
            ("ATTRS{idVendor}\"x\"", "missing operator after ATTRS"),
            ("ENV{}==\"x\"", "empty attribute name"),
            ("GROUP{x}=\"plugdev\"", "GROUP takes no {attribute}"),
            ("MODE==\"0660\"", "operator == not allowed with MODE"),
            ("SUBSYSTEM\"usb\"", "missing operator after SUBSYSTEM"),
            ("GOTO=\"nowhere\"", "GOTO \"nowhere\" has no later LABEL"),
            ("LABEL=\"end\"\nGOTO=\"end\"", "GOTO \"end\" has no later LABEL"),
            ("TAG+=\"uaccess\", \\", "line continuation"),
            ("tag+=\"uaccess\"", "unknown key"),
        ])
    func rejects(text: String, reason: String) {
        #expect {
            _ = try UdevRulesParser.parse(text)
        } throws: { error in
            String(describing: error).contains(reason)
        }
    }
}
