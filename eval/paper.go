package eval

// PaperRow is one case study of the DEMi paper: Colin Scott, Vjekoslav
// Brajkovic, George Necula, Arvind Krishnamurthy and Scott Shenker,
// "Minimizing Faulty Executions of Distributed Systems", NSDI 2016,
// Table 1 (sizes as deliveries with externals) and Table 2 (runtime in
// seconds and schedules executed). The numbers are copied from the paper.
type PaperRow struct {
	Bug        string `json:"bug"`
	BugType    string `json:"bug_type"`
	Initial    Size   `json:"initial"`
	Provenance Size   `json:"provenance"`
	STSSched   Size   `json:"sts_sched"`
	TFB        Size   `json:"tfb"`
	Optimal    Size   `json:"optimal"`
	NoDiverge  Size   `json:"no_diverge"`
	// Table 2.
	STSSeconds   float64 `json:"sts_seconds"`
	STSSchedules int64   `json:"sts_schedules"`
	TFBSeconds   float64 `json:"tfb_seconds"`
	TFBSchedules int64   `json:"tfb_schedules"`
}

// PaperCitation names the source of PaperRows.
const PaperCitation = `C. Scott, V. Brajkovic, G. Necula, A. Krishnamurthy, S. Shenker, "Minimizing Faulty Executions of Distributed Systems", NSDI 2016, Tables 1 and 2`

// Paper returns the DEMi paper's rows for the akka-raft and Spark case
// studies, in the paper's order.
func Paper() []PaperRow {
	s := func(d, e int) Size { return Size{Deliveries: d, Externals: e} }
	return []PaperRow{
		{"raft-45", "Akka-FIFO, reproduced", s(2160, 108), s(2138, 108), s(1183, 8), s(23, 8), s(22, 8), s(1826, 11), 56, 594, 114, 2854},
		{"raft-46", "Akka-FIFO, reproduced", s(1250, 108), s(1243, 108), s(674, 8), s(35, 8), s(23, 6), s(896, 9), 73, 384, 209, 4518},
		{"raft-56", "Akka-FIFO, found", s(2380, 108), s(2376, 108), s(1427, 8), s(82, 8), s(21, 8), s(2064, 9), 54, 524, 2078, 31149},
		{"raft-58a", "Akka-FIFO, found", s(2850, 108), s(2824, 108), s(953, 32), s(226, 31), s(51, 11), s(2368, 35), 137, 624, 43345, 834972},
		{"raft-58b", "Akka-FIFO, found", s(1500, 208), s(1496, 208), s(164, 13), s(40, 8), s(28, 8), s(1103, 13), 23, 340, 31, 1747},
		{"raft-42", "Akka-FIFO, reproduced", s(1710, 208), s(1695, 208), s(1093, 39), s(180, 21), s(39, 16), s(1264, 43), 118, 568, 10558, 176517},
		{"raft-66", "Akka-UDP, found", s(400, 68), s(392, 68), s(262, 23), s(77, 15), s(29, 10), s(279, 23), 14, 192, 334, 10334},
		{"spark-2294", "Akka-FIFO, reproduced", s(1000, 30), s(886, 30), s(43, 3), s(40, 3), s(25, 1), s(43, 3), 330, 248, 97, 78},
		{"spark-3150", "Akka-FIFO, reproduced", s(600, 20), s(536, 20), s(18, 3), s(14, 3), s(11, 3), s(18, 3), 219, 174, 26, 21},
		{"spark-9256", "Akka-FIFO, found (rare)", s(300, 20), s(256, 20), s(11, 1), s(11, 1), s(11, 1), s(11, 1), 96, 73, 0, 0},
	}
}

// PaperFor returns the paper's row for bug, if the paper has one.
func PaperFor(bug string) (PaperRow, bool) {
	for _, r := range Paper() {
		if r.Bug == bug {
			return r, true
		}
	}
	return PaperRow{}, false
}

// PaperFigures are the paper's own figures over a set of bugs, computed
// from Paper: the ratio of its TFB column to its Optimal column
// (deliveries), as demi's TFB/Reference is computed, and the range of its
// TFB runtimes.
type PaperFigures struct {
	// Bugs are the bugs the paper has a row for, in the order given.
	Bugs []string
	// MedianTFBOverOptimal and WorstTFBOverOptimal are the median and the
	// largest TFB/Optimal ratio; WorstBug has the largest.
	MedianTFBOverOptimal, WorstTFBOverOptimal float64
	WorstBug                                  string
	// MinTFBSeconds and MaxTFBSeconds bound the paper's TFB runtimes.
	MinTFBSeconds, MaxTFBSeconds float64
}

// PaperFiguresFor computes the paper's figures over bugs, so that they are
// compared with demi's over the same bugs; bugs the paper has no row for
// are left out.
func PaperFiguresFor(bugs []string) PaperFigures {
	var f PaperFigures
	var ratios []float64
	for _, b := range bugs {
		r, ok := PaperFor(b)
		if !ok {
			continue
		}
		x, ok := Ratio(r.TFB.Deliveries, r.Optimal.Deliveries)
		if !ok {
			continue
		}
		if len(f.Bugs) == 0 || r.TFBSeconds < f.MinTFBSeconds {
			f.MinTFBSeconds = r.TFBSeconds
		}
		f.MaxTFBSeconds = max(f.MaxTFBSeconds, r.TFBSeconds)
		f.Bugs = append(f.Bugs, b)
		ratios = append(ratios, x)
		if x > f.WorstTFBOverOptimal {
			f.WorstTFBOverOptimal, f.WorstBug = x, b
		}
	}
	f.MedianTFBOverOptimal = median(ratios)
	return f
}
