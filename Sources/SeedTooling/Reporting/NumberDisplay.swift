import Foundation

extension Int {
    /// 1,234,567.
    package var grouped: String {
        let digits = String(self.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (self < 0 ? "-" : "") + out
    }

    /// 12.3 KB.
    package var byteSize: String {
        let units = ["bytes", "KB", "MB", "GB"]
        var value = Double(self)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(self) bytes" : String(format: "%.1f %@", value, units[unit])
    }
}

extension String {
    package func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
