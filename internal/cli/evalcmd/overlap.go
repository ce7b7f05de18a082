package evalcmd

import (
	"flag"
	"fmt"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/internal/cli/base"
	"github.com/isagi-lab/isagi/ugt"
)

// cmdOverlap is `isagi eval overlap A B`: how much two profiles' behavioural
// subspaces agree.
func cmdOverlap(env base.Env, args []string) error {
	if len(args) > 0 && base.IsHelp(args[0]) {
		fmt.Fprint(env.Stderr, evalUsage)
		return flag.ErrHelp
	}
	if len(args) != 2 {
		return base.Usagef("eval overlap needs two profile files (see <data dir>/profiles), got %d", len(args))
	}
	var ps [2]*geometry.Profile
	for i, path := range args {
		p, err := geometry.LoadProfile(path, -1)
		if err != nil {
			return err
		}
		ps[i] = p
	}
	if ps[0].D != ps[1].D || ps[0].K != ps[1].K {
		return fmt.Errorf("the bases differ in shape (%d×%d and %d×%d): overlap compares bases of one width and rank", ps[0].D, ps[0].K, ps[1].D, ps[1].K)
	}
	o, err := ugt.Overlap(ps[0].B, ps[1].B)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "overlap %.4f (k=%d, d=%d): %s (block %d) vs %s (block %d)\n", o, ps[0].K, ps[0].D,
		ps[0].Model.File, ps[0].Layer, ps[1].Model.File, ps[1].Layer)
	return nil
}
