import Foundation
import Testing
import WPTestThreads
@testable import WPClient

/// Per-field tolerance: bad values become nil (never 0), bad devices are dropped and reported,
/// bad documents fail with a decode error that quotes nothing from the body.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DecoderToleranceTests {
    static func page(realtime: String, extra: String = "") -> [UInt8] {
        Array("""
        {"total":1,"pageSize":20,"currentPage":1,"data":[{"assetDevice":{"id":"dev-1"},\
        "realtime":{\(realtime)}\(extra)}],"code":"000000","msg":"OK"}
        """.utf8)
    }

    static func loadTotalWatt(_ json: String) throws -> Double? {
        let page = try DeviceListDecoder().decodeDeviceList(page(realtime: "\"loadTotalWatt\":\(json)"))
        return try #require(page.devices.first).realtime.loadTotalWatt
    }

    @Test(arguments: [
        ("\"195\"", 195.0), ("195", 195.0), ("\" 195.5 \"", 195.5), ("\"\\t42\"", 42.0), ("-3.25", -3.25),
        ("\"1e3\"", 1000.0), ("\"0\"", 0.0), ("\"+7\"", 7.0), ("\"12345678901234567890\"", 12345678901234567890.0),
        ("\"0.1\"", 0.1), ("\".5\"", 0.5), ("1.5E-2", 0.015), ("\"\\u0031\\u0032\"", 12.0),
    ])
    func numbersParse(json: String, expected: Double) throws {
        #expect(try Self.loadTotalWatt(json) == expected)
    }

    @Test(arguments: ["\"\"", "\"N/A\"", "\"--\"", "\"abc\"", "\"1,234\"", "\"12abc\"", "\"nan\"", "\"inf\"",
                      "\"0x10\"", "\"1e999\"", "\"-\"", "\".\"", "\"1.\"", "null", "true", "{}", "[1]", "\"  \""])
    func garbageIsNilNeverZero(json: String) throws {
        #expect(try Self.loadTotalWatt(json) == nil)
    }

    @Test func codesMustBeIntegral() throws {
        let page = try DeviceListDecoder().decodeDeviceList(Self.page(realtime: "\"mode\":\"3.5\",\"status\":\"2.0\""))
        let realtime = try #require(page.devices.first).realtime
        #expect(realtime.mode == nil)
        #expect(realtime.status == 2)
    }

    @Test func faultCodeEmptyIsNilAndTextIsKept() throws {
        let empty = try #require(try DeviceListDecoder().decodeDeviceList(Self.page(realtime: "\"faultCode\":\" \"")).devices.first)
        #expect(empty.realtime.faultCode == nil)
        #expect(empty.hasFault == false, "an empty code is \"no fault\"")
        let coded = try #require(try DeviceListDecoder().decodeDeviceList(Self.page(realtime: "\"faultCode\":\"0B\"")).devices.first)
        #expect(coded.realtime.faultCode == "0B")
        #expect(coded.hasFault == true)
        let missing = try #require(try DeviceListDecoder().decodeDeviceList(Self.page(realtime: "\"mode\":\"3\"")).devices.first)
        #expect(missing.hasFault == nil, "no faultCode field: unknown, not \"no fault\"")
        let null = try #require(try DeviceListDecoder().decodeDeviceList(Self.page(realtime: "\"faultCode\":null")).devices.first)
        #expect(null.hasFault == nil)
        var offline = empty
        offline.connected = false
        #expect(offline.hasFault == nil, "a disconnected device's empty readings say nothing")
    }

    @Test func unknownFieldsAreIgnoredAnywhere() throws {
        let body = Array("""
        {"extra":{"deep":[1,{"x":null}]},"total":"1","data":[{"newSection":{"a":1},"assetDevice":{"id":"d","futureField":[true]},\
        "realtime":{"loadTotalWatt":"5","somethingNew":"7"},"connected":"true"}],"code":"000000","message":"fine","more":1.5e3}
        """.utf8)
        let page = try DeviceListDecoder().decodeDeviceList(body)
        #expect(page.total == 1)
        #expect(page.message == "fine") // `message` accepted like `msg`
        let device = try #require(page.devices.first)
        #expect(device.realtime.loadTotalWatt == 5)
        #expect(device.connected == true)
    }

    @Test func mistypedAssetFieldsDoNotDropTheDevice() throws {
        let body = Array("""
        {"total":1,"data":[{"assetDevice":{"id":"d","deviceType":"UPS","baudRate":{},"isActive":"yes","alias":42,\
        "warrantyStatus":"1"},"realtime":[],"config":"x","activeAlarms":{}}],"code":"000000","msg":"OK"}
        """.utf8)
        let page = try DeviceListDecoder().decodeDeviceList(body)
        let device = try #require(page.devices.first)
        #expect(device.asset.deviceType == nil)
        #expect(device.asset.baudRate == nil)
        #expect(device.asset.isActive == nil)
        #expect(device.asset.alias == "42")
        #expect(device.asset.warrantyStatus == 1)
        #expect(device.realtime == RealtimeReadings())
        #expect(device.config == DeviceConfig())
        #expect(device.activeAlarms == nil)
    }

    @Test func malformedDevicesAreDroppedAndReported() throws {
        let body = Array("""
        {"total":5,"pageSize":20,"data":[{"assetDevice":{"id":"a"}},"oops",{"assetDevice":"x"},{"realtime":{}},\
        {"assetDevice":{"id":""}},{"assetDevice":{"id":"b"}}],"code":"000000","msg":"OK"}
        """.utf8)
        let page = try DeviceListDecoder().decodeDeviceList(body, page: 3)
        #expect(page.devices.map(\.id) == ["a", "b"])
        #expect(page.entryCount == 6)
        #expect(page.dropped == [
            DroppedDevice(page: 3, index: 1, reason: "not an object (string)"),
            DroppedDevice(page: 3, index: 2, reason: "assetDevice is not an object"),
            DroppedDevice(page: 3, index: 3, reason: "assetDevice missing"),
            DroppedDevice(page: 3, index: 4, reason: "assetDevice.id missing or empty"),
        ])
    }

    @Test func alarmCodesFromStringsNumbersAndObjects() throws {
        let body = Array("""
        {"total":1,"data":[{"assetDevice":{"id":"d"},"activeAlarms":["A1",17,{"alarmName":"x","alarmCode":"0x11"},\
        {"id":5,"code":"C9"},{"level":"2"},null,{"id":"occurrence-1"},{"alarmId":"7f3e","alarmName":"x"}]}],        "code":"000000","msg":"OK"}
        """.utf8)
        let device = try #require(try DeviceListDecoder().decodeDeviceList(body).devices.first)
        // Per-occurrence ids (`id`, `alarmId`) are never taken as codes, only shown; an entry
        // saying nothing known (`{"level":"2"}`, `null`) is counted, not described.
        #expect(device.activeAlarms == ActiveAlarms(count: 8, codes: ["A1", "17", "0x11", "C9"], alarms: [
            Alarm(code: "A1"), Alarm(code: "17"), Alarm(code: "0x11", name: "x"), Alarm(code: "C9", id: "5"),
            Alarm(id: "occurrence-1"), Alarm(name: "x", id: "7f3e"),
        ]))
        #expect(device.hasAlarm == true)
    }

    @Test func stringsWithEscapesAndNonASCII() throws {
        let body = Array(#"{"data":[{"assetDevice":{"id":"d","alias":"Rack \"A\" \\ 机房 \u00fc \ud83d\ude00"}}],"code":"000000"}"#.utf8)
        let device = try #require(try DeviceListDecoder().decodeDeviceList(body).devices.first)
        #expect(device.asset.alias == "Rack \"A\" \\ 机房 ü 😀")
    }

    @Test func errorEnvelopeDecodesWithNullData() throws {
        let body = Array(#"{"code":"401","message":"Not logged in or token expired","data":null}"#.utf8)
        let page = try DeviceListDecoder().decodeDeviceList(body)
        #expect(page.code == "401")
        #expect(page.message == "Not logged in or token expired")
        #expect(!page.isSuccess)
        #expect(page.devices.isEmpty)
    }

    @Test(arguments: [
        ("", "unexpected end of document at byte 0"),
        ("[]", "expected a JSON object at byte 0"),
        (#"{"code":"000000","data":[{"assetDevice":{"id":"SECRET-BODY"}"#, "at byte"),
        (#"{"a" 1}"#, "expected ':' at byte 5"),
        (#"{"a":1} x"#, "unexpected data after the document at byte 8"),
        ("<html>", "unexpected character '<' at byte 0"),
        (#"{"a":"\q"}"#, "invalid escape"),
        ("{\"a\":" + String(repeating: "[", count: 100), "nesting deeper than 64"),
    ])
    func syntaxErrorsAreDecodeErrorsWithoutBodyText(body: String, fragment: String) {
        #expect {
            _ = try DeviceListDecoder().decodeDeviceList(Array(body.utf8))
        } throws: { error in
            guard let error = error as? ClientError else { return false }
            return error.kind == .decode && error.message.contains(fragment) && !error.message.contains("SECRET")
        }
    }
}
