/// A bar chart drawn as SVG by the server (no chart library): one bar per bucket, its height
/// proportional to its value, the largest value on the axis, each bar titled with its label and
/// value for a screen reader and a pointer. Every text in it is escaped. Pure.
struct BarChart: Sendable {
    struct Bar: Sendable, Equatable {
        let label: String
        let value: Int64
        /// How the value is read out (`€12.50`, `3 payments`).
        let text: String
    }

    let title: String
    let bars: [Bar]
    var width = 640
    var height = 200

    func svg() -> String {
        let (left, bottom, top) = (8, 22, 16)
        let plotHeight = height - bottom - top
        let largest = max(bars.map(\.value).max() ?? 0, 1)
        let slot = bars.isEmpty ? 0 : Double(width - left * 2) / Double(bars.count)
        let barWidth = max(slot * 0.7, 1)
        var out = #"<svg class="chart" viewBox="0 0 \#(width) \#(height)" role="img" aria-label="\#(Self.escape(title))" xmlns="http://www.w3.org/2000/svg">"#
        out += "<title>\(Self.escape(title))</title>"
        out += #"<line class="axis" x1="\#(left)" y1="\#(height - bottom)" x2="\#(width - left)" y2="\#(height - bottom)"/>"#
        let topText = bars.first { $0.value == largest }?.text ?? ""
        out += #"<text x="\#(left)" y="11">\#(Self.escape(topText))</text>"#
        // Every label where they fit; fewer (evenly) where they would crowd.
        let every = max(1, Int((Double(bars.count) * 44 / Double(width - left * 2)).rounded(.up)))
        for (index, bar) in bars.enumerated() {
            let barHeight = bar.value <= 0 ? 0 : max(1, Int((Double(bar.value) / Double(largest) * Double(plotHeight)).rounded()))
            let x = Double(left) + slot * Double(index) + (slot - barWidth) / 2
            out += #"<rect class="bar" x="\#(Self.number(x))" y="\#(height - bottom - barHeight)" width="\#(Self.number(barWidth))" height="\#(barHeight)">"#
            out += "<title>\(Self.escape(bar.label)): \(Self.escape(bar.text))</title></rect>"
            if index % every == 0 {
                out += #"<text x="\#(Self.number(x + barWidth / 2))" y="\#(height - 6)" text-anchor="middle">\#(Self.escape(bar.label))</text>"#
            }
        }
        return out + "</svg>"
    }

    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// Text for HTML and SVG, escaped as every page of Tender's escapes it.
    static func escape(_ text: String) -> String { GatewayTestPages.escape(text) }
}
