// SIGNRUNS sets s to the 32 signs of four 7-bit ksigns_iq2xs indices as
// bytes −1/+1 (IQ2_XXS's and IQ3_XXS's sign fields, bits 0..27 of the
// dword at aux): each field picks its run's eight bytes from iq2SignRuns
// (dot_iq2_amd64.go), whose address is in R10, by VMOVQ/VPINSRQ into xs
// (s's low half) and xh, joined by VINSERTI128. The field extraction is
// integer work, which leaves the vector pipes to the grid and the dots.
// Clobbers w, t, xh.
#define SIGNRUNS(aux, w, t, s, xs, xh) \
	MOVL        aux, w; \
	MOVL        w, t; \
	ANDL        $127, t; \
	VMOVQ       (R10)(t*8), xs; \
	MOVL        w, t; \
	SHRL        $7, t; \
	ANDL        $127, t; \
	VPINSRQ     $1, (R10)(t*8), xs, xs; \
	MOVL        w, t; \
	SHRL        $14, t; \
	ANDL        $127, t; \
	VMOVQ       (R10)(t*8), xh; \
	SHRL        $21, w; \
	ANDL        $127, w; \
	VPINSRQ     $1, (R10)(w*8), xh, xh; \
	VINSERTI128 $1, xh, s, s
