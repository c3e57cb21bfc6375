package optimal

// Without returns cfg with the named reductions off ("commutation",
// "dominance", "memo"), so that tests and benchmarks check that a
// reduction changes no answer and measure what it saves.
func Without(cfg Config, reductions ...string) Config {
	for _, r := range reductions {
		switch r {
		case "commutation":
			cfg.noCommute = true
		case "dominance":
			cfg.noDominance = true
		case "memo":
			cfg.noMemo = true
		default:
			panic("optimal.Without: unknown reduction " + r)
		}
	}
	return cfg
}

// WithoutCommutation returns cfg with the commutation filter off.
func WithoutCommutation(cfg Config) Config { return Without(cfg, "commutation") }

// Beyond is beyond (Config.Foresee's forecast), for tests.
var Beyond = beyond
