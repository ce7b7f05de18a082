#include "textflag.h"
#include "ahead_amd64.h"
#include "packz_amd64.h"

// Packed IQ3_S kernels (layout and arithmetic: packiq3s.go), sixteen rows
// per ZMM lane, on AVX-512 VNNI. Per super-block: the rows' d widened from
// f16; per sub-block j and token: an integer sum started from −16·Σx =
// 2·m8 and completed by eight VPDPBUSD, one per grid entry m: the sixteen
// rows' 9-bit indices (VPMOVZXBD of the low bytes, the ninth bit ORed in
// under a KMOVW mask), one VPGATHERDD of their entries from iq3sGrid16
// (four bytes 16 + m a row), the negative weights' bytes made 32 − (16 +
// m) by one VPSUBB under a KMOVQ mask of the sign bits, times one
// activation dword broadcast to every lane; then converted, times 2s+1
// (exact), and one FMA into the sub-block position's accumulator: eight
// accumulators a group, summed at the end as the GGUF-layout kernel's
// IQ3HSUM sums its eight lanes.
//
// The gathers (sixteen loads each) bound the kernels: 64 a super-block and
// group. Their destination is zeroed first (VPXORD, a dependency-breaking
// idiom), else each gather would wait on the last use of its register.
// Measured on the 2-vCPU Xeon, one thread, data in L2: a gather alone in a
// loop ~1.5 ns, and the decode kernel ~137 ns a group super-block (1,760
// bytes, 12.8 GB/s) for its 64 gathers; every other load beside them cost
// about as much as a vector operation, since the gathers fill the load
// ports (four entries' ninth bits in one load: 144 → 137 ns; the signs by
// VPMOVB2M from a per-block vector instead of a KMOVQ each: no gain).
// Lookups in registers do not pay here: 512 entries of 16 bits are
// sixteen ZMM tables for VPERMI2W, eight permutes and seven blends per
// 32 lookups against two gathers, and split gathers (ninth bit as the
// mask of two) ran three times slower. Without the prefetches the kernel
// ran from memory no faster than the GGUF-layout one.
//
// Z29 = 32 in every byte, Z30 = 256 in every dword, Z31 iq3sOdd.

// iq3sGrid16 is iq3s_grid (iqtables_gen.go) with 16 added to each of its
// entries' four bytes (magnitudes 1…15 become 17…31); TestPackedIQ3S
// checks it entry by entry through the kernels.
DATA iq3sGrid16<>+0(SB)/8, $0x1111111311111111
DATA iq3sGrid16<>+8(SB)/8, $0x1111111b11111115
DATA iq3sGrid16<>+16(SB)/8, $0x111113111111111f
DATA iq3sGrid16<>+24(SB)/8, $0x1111131511111313
DATA iq3sGrid16<>+32(SB)/8, $0x1111131d11111319
DATA iq3sGrid16<>+40(SB)/8, $0x1111151311111511
DATA iq3sGrid16<>+48(SB)/8, $0x111117171111151b
DATA iq3sGrid16<>+56(SB)/8, $0x1111191511111911
DATA iq3sGrid16<>+64(SB)/8, $0x1111191f1111191b
DATA iq3sGrid16<>+72(SB)/8, $0x11111b1711111b13
DATA iq3sGrid16<>+80(SB)/8, $0x11111d1511111d11
DATA iq3sGrid16<>+88(SB)/8, $0x11111f1911111f13
DATA iq3sGrid16<>+96(SB)/8, $0x1113111111111f1f
DATA iq3sGrid16<>+104(SB)/8, $0x1113111511131113
DATA iq3sGrid16<>+112(SB)/8, $0x1113131111131119
DATA iq3sGrid16<>+120(SB)/8, $0x1113131b11131313
DATA iq3sGrid16<>+128(SB)/8, $0x1113151711131511
DATA iq3sGrid16<>+136(SB)/8, $0x111317131113151f
DATA iq3sGrid16<>+144(SB)/8, $0x111319191113171b
DATA iq3sGrid16<>+152(SB)/8, $0x11131d1b11131d13
DATA iq3sGrid16<>+160(SB)/8, $0x1115111111131f15
DATA iq3sGrid16<>+168(SB)/8, $0x1115111b11151113
DATA iq3sGrid16<>+176(SB)/8, $0x111513111115111f
DATA iq3sGrid16<>+184(SB)/8, $0x1115131d11151317
DATA iq3sGrid16<>+192(SB)/8, $0x1115151b11151513
DATA iq3sGrid16<>+200(SB)/8, $0x1115171911151711
DATA iq3sGrid16<>+208(SB)/8, $0x1115191b11151915
DATA iq3sGrid16<>+216(SB)/8, $0x11151b131115191f
DATA iq3sGrid16<>+224(SB)/8, $0x11151f1111151b17
DATA iq3sGrid16<>+232(SB)/8, $0x1117111711151f17
DATA iq3sGrid16<>+240(SB)/8, $0x1117131b11171313
DATA iq3sGrid16<>+248(SB)/8, $0x1117151511171511
DATA iq3sGrid16<>+256(SB)/8, $0x1117171711171713
DATA iq3sGrid16<>+264(SB)/8, $0x111719191117171d
DATA iq3sGrid16<>+272(SB)/8, $0x11171b1511171b11
DATA iq3sGrid16<>+280(SB)/8, $0x11171f1311171d1f
DATA iq3sGrid16<>+288(SB)/8, $0x1119111111171f1b
DATA iq3sGrid16<>+296(SB)/8, $0x1119131f11191317
DATA iq3sGrid16<>+304(SB)/8, $0x1119151911191513
DATA iq3sGrid16<>+312(SB)/8, $0x1119191111191715
DATA iq3sGrid16<>+320(SB)/8, $0x11191b1311191917
DATA iq3sGrid16<>+328(SB)/8, $0x111b111511191f11
DATA iq3sGrid16<>+336(SB)/8, $0x111b1511111b1119
DATA iq3sGrid16<>+344(SB)/8, $0x111b151d111b1515
DATA iq3sGrid16<>+352(SB)/8, $0x111b1913111b1717
DATA iq3sGrid16<>+360(SB)/8, $0x111b191f111b191b
DATA iq3sGrid16<>+368(SB)/8, $0x111b1f17111b1d1d
DATA iq3sGrid16<>+376(SB)/8, $0x111d1313111d111d
DATA iq3sGrid16<>+384(SB)/8, $0x111d1713111d1317
DATA iq3sGrid16<>+392(SB)/8, $0x111d1f13111d1b15
DATA iq3sGrid16<>+400(SB)/8, $0x111f1115111f1111
DATA iq3sGrid16<>+408(SB)/8, $0x111f1511111f1119
DATA iq3sGrid16<>+416(SB)/8, $0x111f151d111f1515
DATA iq3sGrid16<>+424(SB)/8, $0x111f1b11111f1717
DATA iq3sGrid16<>+432(SB)/8, $0x13111111111f1b19
DATA iq3sGrid16<>+440(SB)/8, $0x1311111513111113
DATA iq3sGrid16<>+448(SB)/8, $0x1311131113111119
DATA iq3sGrid16<>+456(SB)/8, $0x1311131713111313
DATA iq3sGrid16<>+464(SB)/8, $0x1311131f1311131b
DATA iq3sGrid16<>+472(SB)/8, $0x1311151513111511
DATA iq3sGrid16<>+480(SB)/8, $0x1311171913111713
DATA iq3sGrid16<>+488(SB)/8, $0x13111b191311171d
DATA iq3sGrid16<>+496(SB)/8, $0x13111d1313111b1d
DATA iq3sGrid16<>+504(SB)/8, $0x1313111113111f15
DATA iq3sGrid16<>+512(SB)/8, $0x1313111713131113
DATA iq3sGrid16<>+520(SB)/8, $0x131313111313111d
DATA iq3sGrid16<>+528(SB)/8, $0x1313151313131319
DATA iq3sGrid16<>+536(SB)/8, $0x1313171713131711
DATA iq3sGrid16<>+544(SB)/8, $0x13131b1113131913
DATA iq3sGrid16<>+552(SB)/8, $0x13131f1113131b15
DATA iq3sGrid16<>+560(SB)/8, $0x1315111113131f1d
DATA iq3sGrid16<>+568(SB)/8, $0x1315131b13151315
DATA iq3sGrid16<>+576(SB)/8, $0x131515111315131f
DATA iq3sGrid16<>+584(SB)/8, $0x1315171513151519
DATA iq3sGrid16<>+592(SB)/8, $0x1315191713151911
DATA iq3sGrid16<>+600(SB)/8, $0x13151d1113151b1b
DATA iq3sGrid16<>+608(SB)/8, $0x1317111313151f15
DATA iq3sGrid16<>+616(SB)/8, $0x1317111f13171119
DATA iq3sGrid16<>+624(SB)/8, $0x1317131713171311
DATA iq3sGrid16<>+632(SB)/8, $0x1317151f13171513
DATA iq3sGrid16<>+640(SB)/8, $0x1317171913171711
DATA iq3sGrid16<>+648(SB)/8, $0x13171d1513171913
DATA iq3sGrid16<>+656(SB)/8, $0x1319111713171f11
DATA iq3sGrid16<>+664(SB)/8, $0x131913151319111b
DATA iq3sGrid16<>+672(SB)/8, $0x1319171313191319
DATA iq3sGrid16<>+680(SB)/8, $0x1319191513191717
DATA iq3sGrid16<>+688(SB)/8, $0x13191b111319191d
DATA iq3sGrid16<>+696(SB)/8, $0x131b111313191b19
DATA iq3sGrid16<>+704(SB)/8, $0x131b1317131b1311
DATA iq3sGrid16<>+712(SB)/8, $0x131b1711131b1513
DATA iq3sGrid16<>+720(SB)/8, $0x131b1b13131b1715
DATA iq3sGrid16<>+728(SB)/8, $0x131d1519131d1511
DATA iq3sGrid16<>+736(SB)/8, $0x131d1919131d151f
DATA iq3sGrid16<>+744(SB)/8, $0x131f1113131d191d
DATA iq3sGrid16<>+752(SB)/8, $0x131f1311131f1117
DATA iq3sGrid16<>+760(SB)/8, $0x131f1513131f1315
DATA iq3sGrid16<>+768(SB)/8, $0x131f1913131f171b
DATA iq3sGrid16<>+776(SB)/8, $0x131f1f11131f1d15
DATA iq3sGrid16<>+784(SB)/8, $0x1511111315111111
DATA iq3sGrid16<>+792(SB)/8, $0x1511111b15111117
DATA iq3sGrid16<>+800(SB)/8, $0x151113111511111f
DATA iq3sGrid16<>+808(SB)/8, $0x1511131915111315
DATA iq3sGrid16<>+816(SB)/8, $0x151115131511131d
DATA iq3sGrid16<>+824(SB)/8, $0x1511151f15111517
DATA iq3sGrid16<>+832(SB)/8, $0x1511171515111711
DATA iq3sGrid16<>+840(SB)/8, $0x1511191715111913
DATA iq3sGrid16<>+848(SB)/8, $0x15111b111511191b
DATA iq3sGrid16<>+856(SB)/8, $0x15111d1f15111b15
DATA iq3sGrid16<>+864(SB)/8, $0x15111f1715111f11
DATA iq3sGrid16<>+872(SB)/8, $0x1513111115111f1b
DATA iq3sGrid16<>+880(SB)/8, $0x1513131115131115
DATA iq3sGrid16<>+888(SB)/8, $0x1513131f15131317
DATA iq3sGrid16<>+896(SB)/8, $0x1513151b15131515
DATA iq3sGrid16<>+904(SB)/8, $0x1513171915131713
DATA iq3sGrid16<>+912(SB)/8, $0x15131b1315131915
DATA iq3sGrid16<>+920(SB)/8, $0x1515111915151113
DATA iq3sGrid16<>+928(SB)/8, $0x151515131515111f
DATA iq3sGrid16<>+936(SB)/8, $0x1515171115151517
DATA iq3sGrid16<>+944(SB)/8, $0x151519131515171f
DATA iq3sGrid16<>+952(SB)/8, $0x15151b1f15151b17
DATA iq3sGrid16<>+960(SB)/8, $0x15151f1915151f13
DATA iq3sGrid16<>+968(SB)/8, $0x1517111515171111
DATA iq3sGrid16<>+976(SB)/8, $0x151713131517111b
DATA iq3sGrid16<>+984(SB)/8, $0x1517151915171515
DATA iq3sGrid16<>+992(SB)/8, $0x1517171715171713
DATA iq3sGrid16<>+1000(SB)/8, $0x15171b1115171915
DATA iq3sGrid16<>+1008(SB)/8, $0x1519111315171d1d
DATA iq3sGrid16<>+1016(SB)/8, $0x151915111519111f
DATA iq3sGrid16<>+1024(SB)/8, $0x1519171515191517
DATA iq3sGrid16<>+1032(SB)/8, $0x151919131519171b
DATA iq3sGrid16<>+1040(SB)/8, $0x15191f1b15191f15
DATA iq3sGrid16<>+1048(SB)/8, $0x151b1313151b1119
DATA iq3sGrid16<>+1056(SB)/8, $0x151b171f151b1515
DATA iq3sGrid16<>+1064(SB)/8, $0x151b1b17151b1911
DATA iq3sGrid16<>+1072(SB)/8, $0x151d1111151b1f11
DATA iq3sGrid16<>+1080(SB)/8, $0x151d111f151d1115
DATA iq3sGrid16<>+1088(SB)/8, $0x151d1b1b151d1513
DATA iq3sGrid16<>+1096(SB)/8, $0x151f111b151d1d13
DATA iq3sGrid16<>+1104(SB)/8, $0x151f151d151f1313
DATA iq3sGrid16<>+1112(SB)/8, $0x151f1917151f1711
DATA iq3sGrid16<>+1120(SB)/8, $0x17111115151f1b11
DATA iq3sGrid16<>+1128(SB)/8, $0x1711131717111313
DATA iq3sGrid16<>+1136(SB)/8, $0x1711131f1711131b
DATA iq3sGrid16<>+1144(SB)/8, $0x1711171317111515
DATA iq3sGrid16<>+1152(SB)/8, $0x1711171b17111717
DATA iq3sGrid16<>+1160(SB)/8, $0x1711191917111915
DATA iq3sGrid16<>+1168(SB)/8, $0x17111b131711191f
DATA iq3sGrid16<>+1176(SB)/8, $0x17111f1317111d17
DATA iq3sGrid16<>+1184(SB)/8, $0x1713111717131113
DATA iq3sGrid16<>+1192(SB)/8, $0x171313191713111b
DATA iq3sGrid16<>+1200(SB)/8, $0x1713151717131513
DATA iq3sGrid16<>+1208(SB)/8, $0x17131d1117131911
DATA iq3sGrid16<>+1216(SB)/8, $0x17131f1d17131f15
DATA iq3sGrid16<>+1224(SB)/8, $0x1715131517151111
DATA iq3sGrid16<>+1232(SB)/8, $0x1715171517151511
DATA iq3sGrid16<>+1240(SB)/8, $0x17151b1117151719
DATA iq3sGrid16<>+1248(SB)/8, $0x1717131117171113
DATA iq3sGrid16<>+1256(SB)/8, $0x1717151317171319
DATA iq3sGrid16<>+1264(SB)/8, $0x1717151f17171517
DATA iq3sGrid16<>+1272(SB)/8, $0x1717191317171711
DATA iq3sGrid16<>+1280(SB)/8, $0x1717191f17171917
DATA iq3sGrid16<>+1288(SB)/8, $0x17171f1717171b1b
DATA iq3sGrid16<>+1296(SB)/8, $0x1719131317191117
DATA iq3sGrid16<>+1304(SB)/8, $0x171915151719131d
DATA iq3sGrid16<>+1312(SB)/8, $0x17191b1517191713
DATA iq3sGrid16<>+1320(SB)/8, $0x17191d1917191d11
DATA iq3sGrid16<>+1328(SB)/8, $0x171b1311171b1113
DATA iq3sGrid16<>+1336(SB)/8, $0x171b151b171b1315
DATA iq3sGrid16<>+1344(SB)/8, $0x171b1919171b1715
DATA iq3sGrid16<>+1352(SB)/8, $0x171b1f17171b1b1d
DATA iq3sGrid16<>+1360(SB)/8, $0x171d1913171d131d
DATA iq3sGrid16<>+1368(SB)/8, $0x171f1117171f1113
DATA iq3sGrid16<>+1376(SB)/8, $0x171f1515171f1511
DATA iq3sGrid16<>+1384(SB)/8, $0x19111111171f171b
DATA iq3sGrid16<>+1392(SB)/8, $0x1911131519111119
DATA iq3sGrid16<>+1400(SB)/8, $0x1911151919111511
DATA iq3sGrid16<>+1408(SB)/8, $0x191117151911151f
DATA iq3sGrid16<>+1416(SB)/8, $0x19111b1119111913
DATA iq3sGrid16<>+1424(SB)/8, $0x1913111519111f11
DATA iq3sGrid16<>+1432(SB)/8, $0x191313131913111f
DATA iq3sGrid16<>+1440(SB)/8, $0x1913151519131317
DATA iq3sGrid16<>+1448(SB)/8, $0x1913171b19131711
DATA iq3sGrid16<>+1456(SB)/8, $0x19131b1319131917
DATA iq3sGrid16<>+1464(SB)/8, $0x1915111319131b1b
DATA iq3sGrid16<>+1472(SB)/8, $0x1915131119151117
DATA iq3sGrid16<>+1480(SB)/8, $0x191515131915131b
DATA iq3sGrid16<>+1488(SB)/8, $0x1915191119151717
DATA iq3sGrid16<>+1496(SB)/8, $0x19151d1519151b1f
DATA iq3sGrid16<>+1504(SB)/8, $0x1917111919151f11
DATA iq3sGrid16<>+1512(SB)/8, $0x1917131719171313
DATA iq3sGrid16<>+1520(SB)/8, $0x1917151519171511
DATA iq3sGrid16<>+1528(SB)/8, $0x1917171b19171713
DATA iq3sGrid16<>+1536(SB)/8, $0x1919111519191111
DATA iq3sGrid16<>+1544(SB)/8, $0x1919171f19191519
DATA iq3sGrid16<>+1552(SB)/8, $0x19191f1319191911
DATA iq3sGrid16<>+1560(SB)/8, $0x191b111f191b111b
DATA iq3sGrid16<>+1568(SB)/8, $0x191b1d15191b1513
DATA iq3sGrid16<>+1576(SB)/8, $0x191d1719191d1317
DATA iq3sGrid16<>+1584(SB)/8, $0x191f1311191d1d11
DATA iq3sGrid16<>+1592(SB)/8, $0x191f1711191f131b
DATA iq3sGrid16<>+1600(SB)/8, $0x191f1b13191f1917
DATA iq3sGrid16<>+1608(SB)/8, $0x1b1113111b111115
DATA iq3sGrid16<>+1616(SB)/8, $0x1b1115151b111319
DATA iq3sGrid16<>+1624(SB)/8, $0x1b1119191b111911
DATA iq3sGrid16<>+1632(SB)/8, $0x1b111b151b11191f
DATA iq3sGrid16<>+1640(SB)/8, $0x1b111f191b111d1d
DATA iq3sGrid16<>+1648(SB)/8, $0x1b1311171b131113
DATA iq3sGrid16<>+1656(SB)/8, $0x1b1313151b13111b
DATA iq3sGrid16<>+1664(SB)/8, $0x1b1317151b131513
DATA iq3sGrid16<>+1672(SB)/8, $0x1b1511111b131f15
DATA iq3sGrid16<>+1680(SB)/8, $0x1b1515171b151313
DATA iq3sGrid16<>+1688(SB)/8, $0x1b15171d1b151711
DATA iq3sGrid16<>+1696(SB)/8, $0x1b1711151b151b17
DATA iq3sGrid16<>+1704(SB)/8, $0x1b1713111b17111f
DATA iq3sGrid16<>+1712(SB)/8, $0x1b1719191b17151f
DATA iq3sGrid16<>+1720(SB)/8, $0x1b171d1b1b171b13
DATA iq3sGrid16<>+1728(SB)/8, $0x1b1911131b171f17
DATA iq3sGrid16<>+1736(SB)/8, $0x1b1915111b191119
DATA iq3sGrid16<>+1744(SB)/8, $0x1b19191d1b191715
DATA iq3sGrid16<>+1752(SB)/8, $0x1b1b151d1b1b1315
DATA iq3sGrid16<>+1760(SB)/8, $0x1b1b1b171b1b1b13
DATA iq3sGrid16<>+1768(SB)/8, $0x1b1f11151b1d1915
DATA iq3sGrid16<>+1776(SB)/8, $0x1b1f15151b1f1119
DATA iq3sGrid16<>+1784(SB)/8, $0x1d1113171d111313
DATA iq3sGrid16<>+1792(SB)/8, $0x1d1117131d11131b
DATA iq3sGrid16<>+1800(SB)/8, $0x1d111d111d111717
DATA iq3sGrid16<>+1808(SB)/8, $0x1d1315111d131111
DATA iq3sGrid16<>+1816(SB)/8, $0x1d131d191d13151f
DATA iq3sGrid16<>+1824(SB)/8, $0x1d1517191d151315
DATA iq3sGrid16<>+1832(SB)/8, $0x1d151b1b1d151915
DATA iq3sGrid16<>+1840(SB)/8, $0x1d151f111d151d15
DATA iq3sGrid16<>+1848(SB)/8, $0x1d1713191d171111
DATA iq3sGrid16<>+1856(SB)/8, $0x1d1719111d171513
DATA iq3sGrid16<>+1864(SB)/8, $0x1d1919171d19151b
DATA iq3sGrid16<>+1872(SB)/8, $0x1d1b11111d191d15
DATA iq3sGrid16<>+1880(SB)/8, $0x1d1b17191d1b1117
DATA iq3sGrid16<>+1888(SB)/8, $0x1d1d111b1d1b1d11
DATA iq3sGrid16<>+1896(SB)/8, $0x1d1f13131d1d1911
DATA iq3sGrid16<>+1904(SB)/8, $0x1f1111111d1f1317
DATA iq3sGrid16<>+1912(SB)/8, $0x1f11111f1f111119
DATA iq3sGrid16<>+1920(SB)/8, $0x1f1115151f111511
DATA iq3sGrid16<>+1928(SB)/8, $0x1f1119111f11171d
DATA iq3sGrid16<>+1936(SB)/8, $0x1f111d151f111b19
DATA iq3sGrid16<>+1944(SB)/8, $0x1f1313131f131115
DATA iq3sGrid16<>+1952(SB)/8, $0x1f1319171f131519
DATA iq3sGrid16<>+1960(SB)/8, $0x1f1511131f13191b
DATA iq3sGrid16<>+1968(SB)/8, $0x1f1513111f151119
DATA iq3sGrid16<>+1976(SB)/8, $0x1f1515131f15131d
DATA iq3sGrid16<>+1984(SB)/8, $0x1f151b131f151711
DATA iq3sGrid16<>+1992(SB)/8, $0x1f1717151f171115
DATA iq3sGrid16<>+2000(SB)/8, $0x1f171b171f17171b
DATA iq3sGrid16<>+2008(SB)/8, $0x1f19111b1f191113
DATA iq3sGrid16<>+2016(SB)/8, $0x1f1915111f191317
DATA iq3sGrid16<>+2024(SB)/8, $0x1f1b15151f191b11
DATA iq3sGrid16<>+2032(SB)/8, $0x1f1d11151f1b1915
DATA iq3sGrid16<>+2040(SB)/8, $0x1f1f11111f1d1713
GLOBL iq3sGrid16<>(SB), RODATA|NOPTR, $2048

// iq3sOdd is the sixteen odd scales 2s+1 (s = 0…15) as floats: VPERMPS
// looks a nibble s up in it (it reads an index's low four bits only).
DATA iq3sOdd<>+0(SB)/8, $0x404000003f800000
DATA iq3sOdd<>+8(SB)/8, $0x40e0000040a00000
DATA iq3sOdd<>+16(SB)/8, $0x4130000041100000
DATA iq3sOdd<>+24(SB)/8, $0x4170000041500000
DATA iq3sOdd<>+32(SB)/8, $0x4198000041880000
DATA iq3sOdd<>+40(SB)/8, $0x41b8000041a80000
DATA iq3sOdd<>+48(SB)/8, $0x41d8000041c80000
DATA iq3sOdd<>+56(SB)/8, $0x41f8000041e80000
GLOBL iq3sOdd<>(SB), RODATA|NOPTR, $64

// IQ3SIDXQ and IQ3SIDXS set zi to the sixteen rows' iq3sGrid16 indices
// of entry e (0…63) of the group at base: the low bytes widened, the ninth
// bits ORed in under a mask. IQ3SIDXQ, for e = 4n, loads the ninth bits of
// entries e…e+3 into kq; IQ3SIDXS, for e = 4n+i (i = 1, 2, 3), shifts
// entry e's out of kq: a mask register operation instead of a load, which
// the gathers' sixteen loads make the scarcer (decode 144 → 138 ns a group
// super-block in L2). The kernels compute indices two entries ahead of
// the gather that takes them: a gather whose indices were loaded just
// before it ran about 45% slower (2.2 against 1.5 ns, alone in a loop).
#define IQ3SIDXQ(base, e, zi, kq) \
	VPMOVZXBD 32+16*(e)(base), zi; \
	KMOVQ     1056+2*(e)(base), kq; \
	VPORD     Z30, zi, kq, zi

#define IQ3SIDXS(base, e, zi, kq) \
	VPMOVZXBD 32+16*(e)(base), zi; \
	KSHIFTRQ  $(16*((e)%4)), kq, K1; \
	VPORD     Z30, zi, K1, zi

// IQ3SGATH leaves in zg entry e's sixteen rows' four weights 16 ± m,
// gathered from the table at tab with the indices zi. K7 is all ones.
#define IQ3SGATH(base, tab, e, zi, zg) \
	KMOVW      K7, K2; \
	VPXORD     zg, zg, zg; \
	VPGATHERDD (tab)(zi*4), K2, zg; \
	KMOVQ      1184+8*(e)(base), K3; \
	VPSUBB     zg, Z29, K3, zg

// IQ3SNEG sets z to one token's −16·Σx over a block from its m8 at maddr
// (m8 = −8·Σx).
#define IQ3SNEG(maddr, z) \
	VPBROADCASTD maddr, z; \
	VPADDD       z, z, z

// IQ3SLS sets z to the sixteen rows' 2s+1 of sub-block j of the group at
// base, as floats: nibble j of each row's scales dword looked up in
// iq3sOdd (Z31).
#define IQ3SLS(j, base, z) \
	VPSRLD  $(4*(j)), 1696(base), z; \
	VPERMPS Z31, z, z

// IQ3SFMA converts isum, multiplies it by the scales ls (2s+1 as floats:
// the product, below 2²⁴, is exactly the GGUF-layout kernel's integer
// (2s+1)·isum converted) and adds it times d·dx (dv the rows' d, daddr
// the token's block scale) to acc; sc is scratch.
#define IQ3SFMA(isum, ls, dv, daddr, sc, acc) \
	VCVTDQ2PS   isum, isum; \
	VMULPS      ls, isum, isum; \
	VMULPS.BCST daddr, dv, sc; \
	VFMADD231PS isum, sc, acc

#define IQ3SCONSTS \
	MOVL         $0x20202020, AX; \
	VPBROADCASTD AX, Z29; \
	VMOVUPS      iq3sOdd<>(SB), Z31; \
	MOVL         $0x100, AX; \
	VPBROADCASTD AX, Z30; \
	KXNORW       K7, K7, K7

// IQ3SE2 is entry m of sub-block j for two groups (SI into Z18, R11 into
// Z19), sharing the activation dword's broadcast; its indices are in ia
// and ib, and it computes those of entry en = 8j+m+2 into na and nb, after
// the gathers that read registers it may reuse.
#define IQ3SE2(j, m, ia, ib, na, nb, en, idx) \
	IQ3SGATH(SI, R12, 8*(j)+(m), ia, Z27); \
	IQ3SGATH(R11, R12, 8*(j)+(m), ib, Z28); \
	idx(SI, en, na, K5); \
	idx(R11, en, nb, K6); \
	VPBROADCASTD 32*(j)+4*(m)(DI), Z24; \
	VPDPBUSD     Z24, Z27, Z18; \
	VPDPBUSD     Z24, Z28, Z19

// IQ3SBLK2 is sub-block j of one token for the group at SI (d in Z16,
// accumulator a) and the next at R11 (Z17, b), the indices of its entries
// 0 and 1 in Z20, Z21 and Z22, Z23; it leaves sub-block j+1's there, each
// computed two entries ahead (sub-block 7 leaves bytes of no use: entries
// 64 and 65 would be the ninth bits).
#define IQ3SBLK2(j, a, b) \
	VPBROADCASTD 4*(j)(R9), Z19; \
	VPADDD       Z19, Z19, Z18; \
	VPADDD       Z19, Z19, Z19; \
	IQ3SE2(j, 0, Z20, Z21, Z25, Z26, 8*(j)+2, IQ3SIDXS); \
	IQ3SE2(j, 1, Z22, Z23, Z20, Z21, 8*(j)+3, IQ3SIDXS); \
	IQ3SE2(j, 2, Z25, Z26, Z22, Z23, 8*(j)+4, IQ3SIDXQ); \
	IQ3SE2(j, 3, Z20, Z21, Z25, Z26, 8*(j)+5, IQ3SIDXS); \
	IQ3SE2(j, 4, Z22, Z23, Z20, Z21, 8*(j)+6, IQ3SIDXS); \
	IQ3SE2(j, 5, Z25, Z26, Z22, Z23, 8*(j)+7, IQ3SIDXS); \
	IQ3SE2(j, 6, Z20, Z21, Z20, Z21, 8*(j)+8, IQ3SIDXQ); \
	IQ3SE2(j, 7, Z22, Z23, Z22, Z23, 8*(j)+9, IQ3SIDXS); \
	IQ3SLS(j, SI, Z24); \
	IQ3SLS(j, R11, Z27); \
	IQ3SFMA(Z18, Z24, Z16, 4*(j)(R10), Z28, a); \
	IQ3SFMA(Z19, Z27, Z17, 4*(j)(R10), Z28, b)

// IQ3SE1 is entry m of sub-block j for the group at SI into Z18, its
// indices in ia; it computes entry en's into na.
#define IQ3SE1(j, m, ia, na, en, idx) \
	IQ3SGATH(SI, R12, 8*(j)+(m), ia, Z27); \
	idx(SI, en, na, K5); \
	VPDPBUSD.BCST 32*(j)+4*(m)(DI), Z27, Z18

// IQ3SBLK1 is sub-block j of one token for the group at SI (d in Z16),
// entries 0 and 1's indices in Z20 and Z22, as IQ3SBLK2.
#define IQ3SBLK1(j, a) \
	IQ3SNEG(4*(j)(R9), Z18); \
	IQ3SE1(j, 0, Z20, Z25, 8*(j)+2, IQ3SIDXS); \
	IQ3SE1(j, 1, Z22, Z20, 8*(j)+3, IQ3SIDXS); \
	IQ3SE1(j, 2, Z25, Z22, 8*(j)+4, IQ3SIDXQ); \
	IQ3SE1(j, 3, Z20, Z25, 8*(j)+5, IQ3SIDXS); \
	IQ3SE1(j, 4, Z22, Z20, 8*(j)+6, IQ3SIDXS); \
	IQ3SE1(j, 5, Z25, Z22, 8*(j)+7, IQ3SIDXS); \
	IQ3SE1(j, 6, Z20, Z20, 8*(j)+8, IQ3SIDXQ); \
	IQ3SE1(j, 7, Z22, Z22, 8*(j)+9, IQ3SIDXS); \
	IQ3SLS(j, SI, Z24); \
	IQ3SFMA(Z18, Z24, Z16, 4*(j)(R10), Z28, a)

// func rowsIQ3Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
// SI weights, DI codes, R9 m8, R10 block scales (each at the current
// super-block), R12 iq3sGrid16, CX super-blocks left, R8 groups left, R13
// out; groups two at a time (R11 the second's weights, BX the bytes of a
// group), Z0…Z7 the first's block accumulators and Z8…Z15 the second's.
// The prefetches, four lines a sub-block for j < 7, cover the 1760 bytes
// of a super-block.
TEXT ·rowsIQ3Sx16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nsb+32(FP), BX
	IMULQ $1760, BX
	LEAQ  iq3sGrid16<>(SB), R12
	IQ3SCONSTS

iq3srpair:
	CMPQ R8, $2
	JLT  iq3srgroup
	LEAQ (SI)(BX*1), R11
	MOVQ xq+8(FP), DI
	MOVQ m8+16(FP), R9
	MOVQ xd+24(FP), R10
	MOVQ nsb+32(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	PZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

iq3srploop:
	IQ3SIDXQ(SI, 0, Z20, K5)
	IQ3SIDXQ(R11, 0, Z21, K6)
	IQ3SIDXS(SI, 1, Z22, K5)
	IQ3SIDXS(R11, 1, Z23, K6)
	VCVTPH2PS (SI), Z16
	VCVTPH2PS (R11), Z17
	PFL4(0)
	PFLB4(0)
	IQ3SBLK2(0, Z0, Z8)
	PFL4(256)
	PFLB4(256)
	IQ3SBLK2(1, Z1, Z9)
	PFL4(512)
	PFLB4(512)
	IQ3SBLK2(2, Z2, Z10)
	PFL4(768)
	PFLB4(768)
	IQ3SBLK2(3, Z3, Z11)
	PFL4(1024)
	PFLB4(1024)
	IQ3SBLK2(4, Z4, Z12)
	PFL4(1280)
	PFLB4(1280)
	IQ3SBLK2(5, Z5, Z13)
	PFL4(1536)
	PFLB4(1536)
	IQ3SBLK2(6, Z6, Z14)
	IQ3SBLK2(7, Z7, Z15)
	ADDQ $1760, SI
	ADDQ $1760, R11
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq3srploop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	PHSUM8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	VMOVUPS Z0, (R13)
	VMOVUPS Z8, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     iq3srpair

iq3srgroup:
	TESTQ R8, R8
	JEQ   iq3srend
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq3srloop:
	IQ3SIDXQ(SI, 0, Z20, K5)
	IQ3SIDXS(SI, 1, Z22, K5)
	VCVTPH2PS (SI), Z16
	PFL4(0)
	IQ3SBLK1(0, Z0)
	PFL4(256)
	IQ3SBLK1(1, Z1)
	PFL4(512)
	IQ3SBLK1(2, Z2)
	PFL4(768)
	IQ3SBLK1(3, Z3)
	PFL4(1024)
	IQ3SBLK1(4, Z4)
	PFL4(1280)
	IQ3SBLK1(5, Z5)
	PFL4(1536)
	IQ3SBLK1(6, Z6)
	IQ3SBLK1(7, Z7)
	ADDQ $1760, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq3srloop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq3srgroup

iq3srend:
	VZEROUPPER
	RET

// IQ3SE4 is entry m of sub-block j for four tokens (codes at DI, R11,
// R12, R14) into Z17…Z20, its indices in ia; it computes entry en's into
// na, as IQ3SE1. AX is iq3sGrid16.
#define IQ3SE4(j, m, ia, na, en, idx) \
	IQ3SGATH(SI, AX, 8*(j)+(m), ia, Z22); \
	idx(SI, en, na, K5); \
	VPDPBUSD.BCST 32*(j)+4*(m)(DI), Z22, Z17; \
	VPDPBUSD.BCST 32*(j)+4*(m)(R11), Z22, Z18; \
	VPDPBUSD.BCST 32*(j)+4*(m)(R12), Z22, Z19; \
	VPDPBUSD.BCST 32*(j)+4*(m)(R14), Z22, Z20

// IQ3SBLK4 is sub-block j (block position q = j%4 of the pass) for four
// tokens: their accumulators Z(q), Z(4+q), Z(8+q), Z(12+q); m8 from R9
// and block scales from R10, the tokens DX bytes apart (BX = 3·DX); the
// indices of its entries 0 and 1 in Z21 and Z24, and it leaves sub-block
// j+1's there, as IQ3SBLK1.
#define IQ3SBLK4(j, a0, a1, a2, a3) \
	IQ3SNEG(4*(j)(R9), Z17); \
	IQ3SNEG(4*(j)(R9)(DX*1), Z18); \
	IQ3SNEG(4*(j)(R9)(DX*2), Z19); \
	IQ3SNEG(4*(j)(R9)(BX*1), Z20); \
	IQ3SE4(j, 0, Z21, Z25, 8*(j)+2, IQ3SIDXS); \
	IQ3SE4(j, 1, Z24, Z21, 8*(j)+3, IQ3SIDXS); \
	IQ3SE4(j, 2, Z25, Z24, 8*(j)+4, IQ3SIDXQ); \
	IQ3SE4(j, 3, Z21, Z25, 8*(j)+5, IQ3SIDXS); \
	IQ3SE4(j, 4, Z24, Z21, 8*(j)+6, IQ3SIDXS); \
	IQ3SE4(j, 5, Z25, Z24, 8*(j)+7, IQ3SIDXS); \
	IQ3SE4(j, 6, Z21, Z21, 8*(j)+8, IQ3SIDXQ); \
	IQ3SE4(j, 7, Z24, Z24, 8*(j)+9, IQ3SIDXS); \
	IQ3SLS(j, SI, Z23); \
	IQ3SFMA(Z17, Z23, Z16, 4*(j)(R10), Z26, a0); \
	IQ3SFMA(Z18, Z23, Z16, 4*(j)(R10)(DX*1), Z27, a1); \
	IQ3SFMA(Z19, Z23, Z16, 4*(j)(R10)(DX*2), Z28, a2); \
	IQ3SFMA(Z20, Z23, Z16, 4*(j)(R10)(BX*1), Z26, a3)

// IQ3SG4INIT points DI, R11, R12, R14 at the four tokens' codes, R9 at
// m8, R10 at the block scales, SI at the group (saved in R15) and AX at
// iq3sGrid16, CX the super-blocks, and clears the sixteen accumulators.
#define IQ3SG4INIT \
	MOVQ   R15, SI; \
	MOVQ   xq+8(FP), DI; \
	MOVQ   nsb+32(FP), AX; \
	SHLQ   $8, AX; \
	LEAQ   (DI)(AX*1), R11; \
	LEAQ   (R11)(AX*1), R12; \
	LEAQ   (R12)(AX*1), R14; \
	MOVQ   m8+16(FP), R9; \
	MOVQ   xd+24(FP), R10; \
	MOVQ   nsb+32(FP), CX; \
	LEAQ   iq3sGrid16<>(SB), AX; \
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7); \
	PZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

// func gemm4IQ3Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its 1 KiB frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block scales
// xd + t·8·nsb. Thirty-two accumulators do not fit beside the decoding,
// so each group runs in two passes over its super-blocks (as
// gemm4TQ2x16VNNI): sub-blocks 0…3, whose accumulators (token t's block q
// in Z(4t+q)) then wait in the frame, and sub-blocks 4…7. R11, R12, R14
// the codes of tokens 1…3, DX the bytes per token of m8 and scales, R15
// the group's weights.
TEXT ·gemm4IQ3Sx16VNNI(SB), 0, $1024-64
	MOVQ p+0(FP), R15
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	IQ3SCONSTS

iq3sggroup:
	TESTQ R8, R8
	JEQ   iq3sgend
	IQ3SG4INIT

iq3sgloop0:
	IQ3SIDXQ(SI, 0, Z21, K5)
	IQ3SIDXS(SI, 1, Z24, K5)
	VCVTPH2PS (SI), Z16
	IQ3SBLK4(0, Z0, Z4, Z8, Z12)
	IQ3SBLK4(1, Z1, Z5, Z9, Z13)
	IQ3SBLK4(2, Z2, Z6, Z10, Z14)
	IQ3SBLK4(3, Z3, Z7, Z11, Z15)
	PG4NEXT(1760)
	DECQ CX
	JNZ  iq3sgloop0

	VMOVUPS Z0, 0(SP)
	VMOVUPS Z1, 64(SP)
	VMOVUPS Z2, 128(SP)
	VMOVUPS Z3, 192(SP)
	VMOVUPS Z4, 256(SP)
	VMOVUPS Z5, 320(SP)
	VMOVUPS Z6, 384(SP)
	VMOVUPS Z7, 448(SP)
	VMOVUPS Z8, 512(SP)
	VMOVUPS Z9, 576(SP)
	VMOVUPS Z10, 640(SP)
	VMOVUPS Z11, 704(SP)
	VMOVUPS Z12, 768(SP)
	VMOVUPS Z13, 832(SP)
	VMOVUPS Z14, 896(SP)
	VMOVUPS Z15, 960(SP)
	IQ3SG4INIT

iq3sgloop1:
	IQ3SIDXQ(SI, 32, Z21, K5)
	IQ3SIDXS(SI, 33, Z24, K5)
	VCVTPH2PS (SI), Z16
	IQ3SBLK4(4, Z0, Z4, Z8, Z12)
	IQ3SBLK4(5, Z1, Z5, Z9, Z13)
	IQ3SBLK4(6, Z2, Z6, Z10, Z14)
	IQ3SBLK4(7, Z3, Z7, Z11, Z15)
	PG4NEXT(1760)
	DECQ CX
	JNZ  iq3sgloop1

	MOVQ ostride+56(FP), AX
	SHLQ $2, AX
	PG4OUT(0, Z0, Z1, Z2, Z3, (R13))
	PG4OUT(1, Z4, Z5, Z6, Z7, (R13)(AX*1))
	PG4OUT(2, Z8, Z9, Z10, Z11, (R13)(AX*2))
	LEAQ (AX)(AX*2), AX
	PG4OUT(3, Z12, Z13, Z14, Z15, (R13)(AX*1))
	ADDQ $64, R13
	MOVQ SI, R15               // the pass ended at the next group
	DECQ R8
	JMP  iq3sggroup

iq3sgend:
	VZEROUPPER
	RET
