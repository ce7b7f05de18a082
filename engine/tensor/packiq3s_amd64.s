#include "textflag.h"
#include "ahead_amd64.h"

// Packed IQ3_S kernels (layout and arithmetic: packiq3s.go), sixteen rows
// per ZMM lane, on AVX-512 VNNI. Per super-block: the rows' d widened from
// f16; per sub-block j and token: an integer sum started from −15·Σx =
// 2·m8 − m8/8 and completed by eight VPDPBUSD, one per grid entry m: the
// sixteen rows' 9-bit indices (VPMOVZXBD of the low bytes, the ninth bit
// ORed in under a KMOVW mask), one VPGATHERDD of their entries from
// iq3sGrid15 (four bytes 15 + m a row), the negative weights' bytes made
// 30 − (15 + m) by one VPSUBB under a KMOVQ mask of the sign bits, times
// one activation dword broadcast to every lane; then times 2s+1 (VPMULLD),
// converted, and one FMA into the sub-block position's accumulator: eight
// accumulators a group, summed at the end as the GGUF-layout kernel's
// IQ3HSUM sums its eight lanes.
//
// The gathers (sixteen loads each) bound the kernels: 64 a super-block and
// group. Their destination is zeroed first (VPXORD, a dependency-breaking
// idiom), else each gather would wait on the last use of its register.
//
// Z29 = 30 in every byte, Z30 = 256 in every dword.

// iq3sGrid15 is iq3s_grid (iqtables_gen.go) with 15 added to each of its
// entries' four bytes (magnitudes 1…15 become 16…30); TestPackedIQ3S
// checks it entry by entry through the kernels.
DATA iq3sGrid15<>+0(SB)/8, $0x1010101210101010
DATA iq3sGrid15<>+8(SB)/8, $0x1010101a10101014
DATA iq3sGrid15<>+16(SB)/8, $0x101012101010101e
DATA iq3sGrid15<>+24(SB)/8, $0x1010121410101212
DATA iq3sGrid15<>+32(SB)/8, $0x1010121c10101218
DATA iq3sGrid15<>+40(SB)/8, $0x1010141210101410
DATA iq3sGrid15<>+48(SB)/8, $0x101016161010141a
DATA iq3sGrid15<>+56(SB)/8, $0x1010181410101810
DATA iq3sGrid15<>+64(SB)/8, $0x1010181e1010181a
DATA iq3sGrid15<>+72(SB)/8, $0x10101a1610101a12
DATA iq3sGrid15<>+80(SB)/8, $0x10101c1410101c10
DATA iq3sGrid15<>+88(SB)/8, $0x10101e1810101e12
DATA iq3sGrid15<>+96(SB)/8, $0x1012101010101e1e
DATA iq3sGrid15<>+104(SB)/8, $0x1012101410121012
DATA iq3sGrid15<>+112(SB)/8, $0x1012121010121018
DATA iq3sGrid15<>+120(SB)/8, $0x1012121a10121212
DATA iq3sGrid15<>+128(SB)/8, $0x1012141610121410
DATA iq3sGrid15<>+136(SB)/8, $0x101216121012141e
DATA iq3sGrid15<>+144(SB)/8, $0x101218181012161a
DATA iq3sGrid15<>+152(SB)/8, $0x10121c1a10121c12
DATA iq3sGrid15<>+160(SB)/8, $0x1014101010121e14
DATA iq3sGrid15<>+168(SB)/8, $0x1014101a10141012
DATA iq3sGrid15<>+176(SB)/8, $0x101412101014101e
DATA iq3sGrid15<>+184(SB)/8, $0x1014121c10141216
DATA iq3sGrid15<>+192(SB)/8, $0x1014141a10141412
DATA iq3sGrid15<>+200(SB)/8, $0x1014161810141610
DATA iq3sGrid15<>+208(SB)/8, $0x1014181a10141814
DATA iq3sGrid15<>+216(SB)/8, $0x10141a121014181e
DATA iq3sGrid15<>+224(SB)/8, $0x10141e1010141a16
DATA iq3sGrid15<>+232(SB)/8, $0x1016101610141e16
DATA iq3sGrid15<>+240(SB)/8, $0x1016121a10161212
DATA iq3sGrid15<>+248(SB)/8, $0x1016141410161410
DATA iq3sGrid15<>+256(SB)/8, $0x1016161610161612
DATA iq3sGrid15<>+264(SB)/8, $0x101618181016161c
DATA iq3sGrid15<>+272(SB)/8, $0x10161a1410161a10
DATA iq3sGrid15<>+280(SB)/8, $0x10161e1210161c1e
DATA iq3sGrid15<>+288(SB)/8, $0x1018101010161e1a
DATA iq3sGrid15<>+296(SB)/8, $0x1018121e10181216
DATA iq3sGrid15<>+304(SB)/8, $0x1018141810181412
DATA iq3sGrid15<>+312(SB)/8, $0x1018181010181614
DATA iq3sGrid15<>+320(SB)/8, $0x10181a1210181816
DATA iq3sGrid15<>+328(SB)/8, $0x101a101410181e10
DATA iq3sGrid15<>+336(SB)/8, $0x101a1410101a1018
DATA iq3sGrid15<>+344(SB)/8, $0x101a141c101a1414
DATA iq3sGrid15<>+352(SB)/8, $0x101a1812101a1616
DATA iq3sGrid15<>+360(SB)/8, $0x101a181e101a181a
DATA iq3sGrid15<>+368(SB)/8, $0x101a1e16101a1c1c
DATA iq3sGrid15<>+376(SB)/8, $0x101c1212101c101c
DATA iq3sGrid15<>+384(SB)/8, $0x101c1612101c1216
DATA iq3sGrid15<>+392(SB)/8, $0x101c1e12101c1a14
DATA iq3sGrid15<>+400(SB)/8, $0x101e1014101e1010
DATA iq3sGrid15<>+408(SB)/8, $0x101e1410101e1018
DATA iq3sGrid15<>+416(SB)/8, $0x101e141c101e1414
DATA iq3sGrid15<>+424(SB)/8, $0x101e1a10101e1616
DATA iq3sGrid15<>+432(SB)/8, $0x12101010101e1a18
DATA iq3sGrid15<>+440(SB)/8, $0x1210101412101012
DATA iq3sGrid15<>+448(SB)/8, $0x1210121012101018
DATA iq3sGrid15<>+456(SB)/8, $0x1210121612101212
DATA iq3sGrid15<>+464(SB)/8, $0x1210121e1210121a
DATA iq3sGrid15<>+472(SB)/8, $0x1210141412101410
DATA iq3sGrid15<>+480(SB)/8, $0x1210161812101612
DATA iq3sGrid15<>+488(SB)/8, $0x12101a181210161c
DATA iq3sGrid15<>+496(SB)/8, $0x12101c1212101a1c
DATA iq3sGrid15<>+504(SB)/8, $0x1212101012101e14
DATA iq3sGrid15<>+512(SB)/8, $0x1212101612121012
DATA iq3sGrid15<>+520(SB)/8, $0x121212101212101c
DATA iq3sGrid15<>+528(SB)/8, $0x1212141212121218
DATA iq3sGrid15<>+536(SB)/8, $0x1212161612121610
DATA iq3sGrid15<>+544(SB)/8, $0x12121a1012121812
DATA iq3sGrid15<>+552(SB)/8, $0x12121e1012121a14
DATA iq3sGrid15<>+560(SB)/8, $0x1214101012121e1c
DATA iq3sGrid15<>+568(SB)/8, $0x1214121a12141214
DATA iq3sGrid15<>+576(SB)/8, $0x121414101214121e
DATA iq3sGrid15<>+584(SB)/8, $0x1214161412141418
DATA iq3sGrid15<>+592(SB)/8, $0x1214181612141810
DATA iq3sGrid15<>+600(SB)/8, $0x12141c1012141a1a
DATA iq3sGrid15<>+608(SB)/8, $0x1216101212141e14
DATA iq3sGrid15<>+616(SB)/8, $0x1216101e12161018
DATA iq3sGrid15<>+624(SB)/8, $0x1216121612161210
DATA iq3sGrid15<>+632(SB)/8, $0x1216141e12161412
DATA iq3sGrid15<>+640(SB)/8, $0x1216161812161610
DATA iq3sGrid15<>+648(SB)/8, $0x12161c1412161812
DATA iq3sGrid15<>+656(SB)/8, $0x1218101612161e10
DATA iq3sGrid15<>+664(SB)/8, $0x121812141218101a
DATA iq3sGrid15<>+672(SB)/8, $0x1218161212181218
DATA iq3sGrid15<>+680(SB)/8, $0x1218181412181616
DATA iq3sGrid15<>+688(SB)/8, $0x12181a101218181c
DATA iq3sGrid15<>+696(SB)/8, $0x121a101212181a18
DATA iq3sGrid15<>+704(SB)/8, $0x121a1216121a1210
DATA iq3sGrid15<>+712(SB)/8, $0x121a1610121a1412
DATA iq3sGrid15<>+720(SB)/8, $0x121a1a12121a1614
DATA iq3sGrid15<>+728(SB)/8, $0x121c1418121c1410
DATA iq3sGrid15<>+736(SB)/8, $0x121c1818121c141e
DATA iq3sGrid15<>+744(SB)/8, $0x121e1012121c181c
DATA iq3sGrid15<>+752(SB)/8, $0x121e1210121e1016
DATA iq3sGrid15<>+760(SB)/8, $0x121e1412121e1214
DATA iq3sGrid15<>+768(SB)/8, $0x121e1812121e161a
DATA iq3sGrid15<>+776(SB)/8, $0x121e1e10121e1c14
DATA iq3sGrid15<>+784(SB)/8, $0x1410101214101010
DATA iq3sGrid15<>+792(SB)/8, $0x1410101a14101016
DATA iq3sGrid15<>+800(SB)/8, $0x141012101410101e
DATA iq3sGrid15<>+808(SB)/8, $0x1410121814101214
DATA iq3sGrid15<>+816(SB)/8, $0x141014121410121c
DATA iq3sGrid15<>+824(SB)/8, $0x1410141e14101416
DATA iq3sGrid15<>+832(SB)/8, $0x1410161414101610
DATA iq3sGrid15<>+840(SB)/8, $0x1410181614101812
DATA iq3sGrid15<>+848(SB)/8, $0x14101a101410181a
DATA iq3sGrid15<>+856(SB)/8, $0x14101c1e14101a14
DATA iq3sGrid15<>+864(SB)/8, $0x14101e1614101e10
DATA iq3sGrid15<>+872(SB)/8, $0x1412101014101e1a
DATA iq3sGrid15<>+880(SB)/8, $0x1412121014121014
DATA iq3sGrid15<>+888(SB)/8, $0x1412121e14121216
DATA iq3sGrid15<>+896(SB)/8, $0x1412141a14121414
DATA iq3sGrid15<>+904(SB)/8, $0x1412161814121612
DATA iq3sGrid15<>+912(SB)/8, $0x14121a1214121814
DATA iq3sGrid15<>+920(SB)/8, $0x1414101814141012
DATA iq3sGrid15<>+928(SB)/8, $0x141414121414101e
DATA iq3sGrid15<>+936(SB)/8, $0x1414161014141416
DATA iq3sGrid15<>+944(SB)/8, $0x141418121414161e
DATA iq3sGrid15<>+952(SB)/8, $0x14141a1e14141a16
DATA iq3sGrid15<>+960(SB)/8, $0x14141e1814141e12
DATA iq3sGrid15<>+968(SB)/8, $0x1416101414161010
DATA iq3sGrid15<>+976(SB)/8, $0x141612121416101a
DATA iq3sGrid15<>+984(SB)/8, $0x1416141814161414
DATA iq3sGrid15<>+992(SB)/8, $0x1416161614161612
DATA iq3sGrid15<>+1000(SB)/8, $0x14161a1014161814
DATA iq3sGrid15<>+1008(SB)/8, $0x1418101214161c1c
DATA iq3sGrid15<>+1016(SB)/8, $0x141814101418101e
DATA iq3sGrid15<>+1024(SB)/8, $0x1418161414181416
DATA iq3sGrid15<>+1032(SB)/8, $0x141818121418161a
DATA iq3sGrid15<>+1040(SB)/8, $0x14181e1a14181e14
DATA iq3sGrid15<>+1048(SB)/8, $0x141a1212141a1018
DATA iq3sGrid15<>+1056(SB)/8, $0x141a161e141a1414
DATA iq3sGrid15<>+1064(SB)/8, $0x141a1a16141a1810
DATA iq3sGrid15<>+1072(SB)/8, $0x141c1010141a1e10
DATA iq3sGrid15<>+1080(SB)/8, $0x141c101e141c1014
DATA iq3sGrid15<>+1088(SB)/8, $0x141c1a1a141c1412
DATA iq3sGrid15<>+1096(SB)/8, $0x141e101a141c1c12
DATA iq3sGrid15<>+1104(SB)/8, $0x141e141c141e1212
DATA iq3sGrid15<>+1112(SB)/8, $0x141e1816141e1610
DATA iq3sGrid15<>+1120(SB)/8, $0x16101014141e1a10
DATA iq3sGrid15<>+1128(SB)/8, $0x1610121616101212
DATA iq3sGrid15<>+1136(SB)/8, $0x1610121e1610121a
DATA iq3sGrid15<>+1144(SB)/8, $0x1610161216101414
DATA iq3sGrid15<>+1152(SB)/8, $0x1610161a16101616
DATA iq3sGrid15<>+1160(SB)/8, $0x1610181816101814
DATA iq3sGrid15<>+1168(SB)/8, $0x16101a121610181e
DATA iq3sGrid15<>+1176(SB)/8, $0x16101e1216101c16
DATA iq3sGrid15<>+1184(SB)/8, $0x1612101616121012
DATA iq3sGrid15<>+1192(SB)/8, $0x161212181612101a
DATA iq3sGrid15<>+1200(SB)/8, $0x1612141616121412
DATA iq3sGrid15<>+1208(SB)/8, $0x16121c1016121810
DATA iq3sGrid15<>+1216(SB)/8, $0x16121e1c16121e14
DATA iq3sGrid15<>+1224(SB)/8, $0x1614121416141010
DATA iq3sGrid15<>+1232(SB)/8, $0x1614161416141410
DATA iq3sGrid15<>+1240(SB)/8, $0x16141a1016141618
DATA iq3sGrid15<>+1248(SB)/8, $0x1616121016161012
DATA iq3sGrid15<>+1256(SB)/8, $0x1616141216161218
DATA iq3sGrid15<>+1264(SB)/8, $0x1616141e16161416
DATA iq3sGrid15<>+1272(SB)/8, $0x1616181216161610
DATA iq3sGrid15<>+1280(SB)/8, $0x1616181e16161816
DATA iq3sGrid15<>+1288(SB)/8, $0x16161e1616161a1a
DATA iq3sGrid15<>+1296(SB)/8, $0x1618121216181016
DATA iq3sGrid15<>+1304(SB)/8, $0x161814141618121c
DATA iq3sGrid15<>+1312(SB)/8, $0x16181a1416181612
DATA iq3sGrid15<>+1320(SB)/8, $0x16181c1816181c10
DATA iq3sGrid15<>+1328(SB)/8, $0x161a1210161a1012
DATA iq3sGrid15<>+1336(SB)/8, $0x161a141a161a1214
DATA iq3sGrid15<>+1344(SB)/8, $0x161a1818161a1614
DATA iq3sGrid15<>+1352(SB)/8, $0x161a1e16161a1a1c
DATA iq3sGrid15<>+1360(SB)/8, $0x161c1812161c121c
DATA iq3sGrid15<>+1368(SB)/8, $0x161e1016161e1012
DATA iq3sGrid15<>+1376(SB)/8, $0x161e1414161e1410
DATA iq3sGrid15<>+1384(SB)/8, $0x18101010161e161a
DATA iq3sGrid15<>+1392(SB)/8, $0x1810121418101018
DATA iq3sGrid15<>+1400(SB)/8, $0x1810141818101410
DATA iq3sGrid15<>+1408(SB)/8, $0x181016141810141e
DATA iq3sGrid15<>+1416(SB)/8, $0x18101a1018101812
DATA iq3sGrid15<>+1424(SB)/8, $0x1812101418101e10
DATA iq3sGrid15<>+1432(SB)/8, $0x181212121812101e
DATA iq3sGrid15<>+1440(SB)/8, $0x1812141418121216
DATA iq3sGrid15<>+1448(SB)/8, $0x1812161a18121610
DATA iq3sGrid15<>+1456(SB)/8, $0x18121a1218121816
DATA iq3sGrid15<>+1464(SB)/8, $0x1814101218121a1a
DATA iq3sGrid15<>+1472(SB)/8, $0x1814121018141016
DATA iq3sGrid15<>+1480(SB)/8, $0x181414121814121a
DATA iq3sGrid15<>+1488(SB)/8, $0x1814181018141616
DATA iq3sGrid15<>+1496(SB)/8, $0x18141c1418141a1e
DATA iq3sGrid15<>+1504(SB)/8, $0x1816101818141e10
DATA iq3sGrid15<>+1512(SB)/8, $0x1816121618161212
DATA iq3sGrid15<>+1520(SB)/8, $0x1816141418161410
DATA iq3sGrid15<>+1528(SB)/8, $0x1816161a18161612
DATA iq3sGrid15<>+1536(SB)/8, $0x1818101418181010
DATA iq3sGrid15<>+1544(SB)/8, $0x1818161e18181418
DATA iq3sGrid15<>+1552(SB)/8, $0x18181e1218181810
DATA iq3sGrid15<>+1560(SB)/8, $0x181a101e181a101a
DATA iq3sGrid15<>+1568(SB)/8, $0x181a1c14181a1412
DATA iq3sGrid15<>+1576(SB)/8, $0x181c1618181c1216
DATA iq3sGrid15<>+1584(SB)/8, $0x181e1210181c1c10
DATA iq3sGrid15<>+1592(SB)/8, $0x181e1610181e121a
DATA iq3sGrid15<>+1600(SB)/8, $0x181e1a12181e1816
DATA iq3sGrid15<>+1608(SB)/8, $0x1a1012101a101014
DATA iq3sGrid15<>+1616(SB)/8, $0x1a1014141a101218
DATA iq3sGrid15<>+1624(SB)/8, $0x1a1018181a101810
DATA iq3sGrid15<>+1632(SB)/8, $0x1a101a141a10181e
DATA iq3sGrid15<>+1640(SB)/8, $0x1a101e181a101c1c
DATA iq3sGrid15<>+1648(SB)/8, $0x1a1210161a121012
DATA iq3sGrid15<>+1656(SB)/8, $0x1a1212141a12101a
DATA iq3sGrid15<>+1664(SB)/8, $0x1a1216141a121412
DATA iq3sGrid15<>+1672(SB)/8, $0x1a1410101a121e14
DATA iq3sGrid15<>+1680(SB)/8, $0x1a1414161a141212
DATA iq3sGrid15<>+1688(SB)/8, $0x1a14161c1a141610
DATA iq3sGrid15<>+1696(SB)/8, $0x1a1610141a141a16
DATA iq3sGrid15<>+1704(SB)/8, $0x1a1612101a16101e
DATA iq3sGrid15<>+1712(SB)/8, $0x1a1618181a16141e
DATA iq3sGrid15<>+1720(SB)/8, $0x1a161c1a1a161a12
DATA iq3sGrid15<>+1728(SB)/8, $0x1a1810121a161e16
DATA iq3sGrid15<>+1736(SB)/8, $0x1a1814101a181018
DATA iq3sGrid15<>+1744(SB)/8, $0x1a18181c1a181614
DATA iq3sGrid15<>+1752(SB)/8, $0x1a1a141c1a1a1214
DATA iq3sGrid15<>+1760(SB)/8, $0x1a1a1a161a1a1a12
DATA iq3sGrid15<>+1768(SB)/8, $0x1a1e10141a1c1814
DATA iq3sGrid15<>+1776(SB)/8, $0x1a1e14141a1e1018
DATA iq3sGrid15<>+1784(SB)/8, $0x1c1012161c101212
DATA iq3sGrid15<>+1792(SB)/8, $0x1c1016121c10121a
DATA iq3sGrid15<>+1800(SB)/8, $0x1c101c101c101616
DATA iq3sGrid15<>+1808(SB)/8, $0x1c1214101c121010
DATA iq3sGrid15<>+1816(SB)/8, $0x1c121c181c12141e
DATA iq3sGrid15<>+1824(SB)/8, $0x1c1416181c141214
DATA iq3sGrid15<>+1832(SB)/8, $0x1c141a1a1c141814
DATA iq3sGrid15<>+1840(SB)/8, $0x1c141e101c141c14
DATA iq3sGrid15<>+1848(SB)/8, $0x1c1612181c161010
DATA iq3sGrid15<>+1856(SB)/8, $0x1c1618101c161412
DATA iq3sGrid15<>+1864(SB)/8, $0x1c1818161c18141a
DATA iq3sGrid15<>+1872(SB)/8, $0x1c1a10101c181c14
DATA iq3sGrid15<>+1880(SB)/8, $0x1c1a16181c1a1016
DATA iq3sGrid15<>+1888(SB)/8, $0x1c1c101a1c1a1c10
DATA iq3sGrid15<>+1896(SB)/8, $0x1c1e12121c1c1810
DATA iq3sGrid15<>+1904(SB)/8, $0x1e1010101c1e1216
DATA iq3sGrid15<>+1912(SB)/8, $0x1e10101e1e101018
DATA iq3sGrid15<>+1920(SB)/8, $0x1e1014141e101410
DATA iq3sGrid15<>+1928(SB)/8, $0x1e1018101e10161c
DATA iq3sGrid15<>+1936(SB)/8, $0x1e101c141e101a18
DATA iq3sGrid15<>+1944(SB)/8, $0x1e1212121e121014
DATA iq3sGrid15<>+1952(SB)/8, $0x1e1218161e121418
DATA iq3sGrid15<>+1960(SB)/8, $0x1e1410121e12181a
DATA iq3sGrid15<>+1968(SB)/8, $0x1e1412101e141018
DATA iq3sGrid15<>+1976(SB)/8, $0x1e1414121e14121c
DATA iq3sGrid15<>+1984(SB)/8, $0x1e141a121e141610
DATA iq3sGrid15<>+1992(SB)/8, $0x1e1616141e161014
DATA iq3sGrid15<>+2000(SB)/8, $0x1e161a161e16161a
DATA iq3sGrid15<>+2008(SB)/8, $0x1e18101a1e181012
DATA iq3sGrid15<>+2016(SB)/8, $0x1e1814101e181216
DATA iq3sGrid15<>+2024(SB)/8, $0x1e1a14141e181a10
DATA iq3sGrid15<>+2032(SB)/8, $0x1e1c10141e1a1814
DATA iq3sGrid15<>+2040(SB)/8, $0x1e1e10101e1c1612
GLOBL iq3sGrid15<>(SB), RODATA|NOPTR, $2048

DATA iq3sLow4<>+0(SB)/4, $0x0000000f
GLOBL iq3sLow4<>(SB), RODATA|NOPTR, $4
DATA iq3sOne<>+0(SB)/4, $0x00000001
GLOBL iq3sOne<>(SB), RODATA|NOPTR, $4

// IQ3SIDX sets zi to the sixteen rows' iq3sGrid15 indices of entry e
// (0…63) of the group at base: the low bytes widened, the ninth bits ORed
// in under a mask. The kernels compute them an entry ahead of the gather
// that takes them: a gather whose indices were loaded just before it ran
// about 45% slower (2.2 against 1.5 ns a gather, alone in a loop).
#define IQ3SIDX(base, e, zi) \
	VPMOVZXBD 32+16*(e)(base), zi; \
	KMOVW     1056+2*(e)(base), K1; \
	VPORD     Z30, zi, K1, zi

// IQ3SGATH leaves in zg entry e's sixteen rows' four weights 15 ± m,
// gathered from the table at tab with the indices zi. K7 is all ones.
#define IQ3SGATH(base, tab, e, zi, zg) \
	KMOVW      K7, K2; \
	VPXORD     zg, zg, zg; \
	VPGATHERDD (tab)(zi*4), K2, zg; \
	KMOVQ      1184+8*(e)(base), K3; \
	VPSUBB     zg, Z29, K3, zg

// IQ3SNEG sets z to one token's −15·Σx over a block from its m8 at maddr
// (m8 = −8·Σx): 2·m8 − m8/8. Clobbers tmp.
#define IQ3SNEG(maddr, z, tmp) \
	VPBROADCASTD maddr, z; \
	VPSRAD       $3, z, tmp; \
	VPSLLD       $1, z, z; \
	VPSUBD       tmp, z, z

// IQ3SLS sets z to the sixteen rows' 2s+1 of sub-block j of the group at
// base.
#define IQ3SLS(j, base, z) \
	VPMOVZXBD   1696+16*((j)/2)(base), z; \
	VPSRLD      $(4*((j)%2)), z, z; \
	VPANDD.BCST iq3sLow4<>(SB), z, z; \
	VPSLLD      $1, z, z; \
	VPORD.BCST  iq3sOne<>(SB), z, z

// IQ3SFMA multiplies isum by the scales ls, converts it and adds it times
// d·dx (dv the rows' d, daddr the token's block scale) to acc; sc is
// scratch.
#define IQ3SFMA(isum, ls, dv, daddr, sc, acc) \
	VPMULLD     ls, isum, isum; \
	VCVTDQ2PS   isum, isum; \
	VMULPS.BCST daddr, dv, sc; \
	VFMADD231PS isum, sc, acc

// IQ3SHSUM sums a group's eight block accumulators a0…a7 into a0 in the
// GGUF-layout kernel's order: ((a0+a4) + (a1+a5)) + ((a2+a6) + (a3+a7)).
#define IQ3SHSUM(a0, a1, a2, a3, a4, a5, a6, a7) \
	VADDPS a4, a0, a0; \
	VADDPS a5, a1, a1; \
	VADDPS a6, a2, a2; \
	VADDPS a7, a3, a3; \
	VADDPS a1, a0, a0; \
	VADDPS a3, a2, a2; \
	VADDPS a2, a0, a0

#define IQ3SZERO8(a0, a1, a2, a3, a4, a5, a6, a7) \
	VPXORD a0, a0, a0; \
	VPXORD a1, a1, a1; \
	VPXORD a2, a2, a2; \
	VPXORD a3, a3, a3; \
	VPXORD a4, a4, a4; \
	VPXORD a5, a5, a5; \
	VPXORD a6, a6, a6; \
	VPXORD a7, a7, a7

#define IQ3SCONSTS \
	MOVL         $0x1e1e1e1e, AX; \
	VPBROADCASTD AX, Z29; \
	MOVL         $0x100, AX; \
	VPBROADCASTD AX, Z30; \
	KXNORW       K7, K7, K7

// IQ3SE2 is entry m of sub-block j for two groups (SI into Z18, R11 into
// Z19), sharing the activation dword's broadcast; its indices are in ia
// and ib, and it computes those of entry en = 8j+m+2 into na and nb, after
// the gathers that read registers it may reuse.
#define IQ3SE2(j, m, ia, ib, na, nb, en) \
	IQ3SGATH(SI, R12, 8*(j)+(m), ia, Z27); \
	IQ3SGATH(R11, R12, 8*(j)+(m), ib, Z28); \
	IQ3SIDX(SI, en, na); \
	IQ3SIDX(R11, en, nb); \
	VPBROADCASTD 32*(j)+4*(m)(DI), Z24; \
	VPDPBUSD     Z24, Z27, Z18; \
	VPDPBUSD     Z24, Z28, Z19

// IQ3SBLK2 is sub-block j of one token for the group at SI (d in Z16,
// accumulator a) and the next at R11 (Z17, b), the indices of its entries
// 0 and 1 in Z20, Z21 and Z22, Z23; it leaves sub-block j+1's there, each
// computed two entries ahead (sub-block 7 leaves bytes of no use: entries
// 64 and 65 would be the ninth bits).
#define IQ3SBLK2(j, a, b) \
	IQ3SNEG(4*(j)(R9), Z18, Z24); \
	VMOVDQA64 Z18, Z19; \
	IQ3SE2(j, 0, Z20, Z21, Z25, Z26, 8*(j)+2); \
	IQ3SE2(j, 1, Z22, Z23, Z20, Z21, 8*(j)+3); \
	IQ3SE2(j, 2, Z25, Z26, Z22, Z23, 8*(j)+4); \
	IQ3SE2(j, 3, Z20, Z21, Z25, Z26, 8*(j)+5); \
	IQ3SE2(j, 4, Z22, Z23, Z20, Z21, 8*(j)+6); \
	IQ3SE2(j, 5, Z25, Z26, Z22, Z23, 8*(j)+7); \
	IQ3SE2(j, 6, Z20, Z21, Z20, Z21, 8*(j)+8); \
	IQ3SE2(j, 7, Z22, Z23, Z22, Z23, 8*(j)+9); \
	IQ3SLS(j, SI, Z24); \
	IQ3SLS(j, R11, Z31); \
	IQ3SFMA(Z18, Z24, Z16, 4*(j)(R10), Z27, a); \
	IQ3SFMA(Z19, Z31, Z17, 4*(j)(R10), Z28, b)

// IQ3SE1 is entry m of sub-block j for the group at SI into Z18, its
// indices in ia; it computes entry en's into na.
#define IQ3SE1(j, m, ia, na, en) \
	IQ3SGATH(SI, R12, 8*(j)+(m), ia, Z27); \
	IQ3SIDX(SI, en, na); \
	VPDPBUSD.BCST 32*(j)+4*(m)(DI), Z27, Z18

// IQ3SBLK1 is sub-block j of one token for the group at SI (d in Z16),
// entries 0 and 1's indices in Z20 and Z22, as IQ3SBLK2.
#define IQ3SBLK1(j, a) \
	IQ3SNEG(4*(j)(R9), Z18, Z24); \
	IQ3SE1(j, 0, Z20, Z25, 8*(j)+2); \
	IQ3SE1(j, 1, Z22, Z20, 8*(j)+3); \
	IQ3SE1(j, 2, Z25, Z22, 8*(j)+4); \
	IQ3SE1(j, 3, Z20, Z25, 8*(j)+5); \
	IQ3SE1(j, 4, Z22, Z20, 8*(j)+6); \
	IQ3SE1(j, 5, Z25, Z22, 8*(j)+7); \
	IQ3SE1(j, 6, Z20, Z20, 8*(j)+8); \
	IQ3SE1(j, 7, Z22, Z22, 8*(j)+9); \
	IQ3SLS(j, SI, Z24); \
	IQ3SFMA(Z18, Z24, Z16, 4*(j)(R10), Z27, a)

// func rowsIQ3Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
// SI weights, DI codes, R9 m8, R10 block scales (each at the current
// super-block), R12 iq3sGrid15, CX super-blocks left, R8 groups left, R13
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
	LEAQ  iq3sGrid15<>(SB), R12
	IQ3SCONSTS

iq3srpair:
	CMPQ R8, $2
	JLT  iq3srgroup
	LEAQ (SI)(BX*1), R11
	MOVQ xq+8(FP), DI
	MOVQ m8+16(FP), R9
	MOVQ xd+24(FP), R10
	MOVQ nsb+32(FP), CX
	IQ3SZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	IQ3SZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

iq3srploop:
	IQ3SIDX(SI, 0, Z20)
	IQ3SIDX(R11, 0, Z21)
	IQ3SIDX(SI, 1, Z22)
	IQ3SIDX(R11, 1, Z23)
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

	IQ3SHSUM(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	IQ3SHSUM(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
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
	IQ3SZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq3srloop:
	IQ3SIDX(SI, 0, Z20)
	IQ3SIDX(SI, 1, Z22)
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

	IQ3SHSUM(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq3srgroup

iq3srend:
	VZEROUPPER
	RET

// IQ3SE4 is entry m of sub-block j for four tokens (codes at DI, R11,
// R12, R14) into Z17…Z20, its indices in ia; it computes entry en's into
// na, as IQ3SE1. AX is iq3sGrid15.
#define IQ3SE4(j, m, ia, na, en) \
	IQ3SGATH(SI, AX, 8*(j)+(m), ia, Z22); \
	IQ3SIDX(SI, en, na); \
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
	IQ3SNEG(4*(j)(R9), Z17, Z26); \
	IQ3SNEG(4*(j)(R9)(DX*1), Z18, Z26); \
	IQ3SNEG(4*(j)(R9)(DX*2), Z19, Z26); \
	IQ3SNEG(4*(j)(R9)(BX*1), Z20, Z26); \
	IQ3SE4(j, 0, Z21, Z25, 8*(j)+2); \
	IQ3SE4(j, 1, Z24, Z21, 8*(j)+3); \
	IQ3SE4(j, 2, Z25, Z24, 8*(j)+4); \
	IQ3SE4(j, 3, Z21, Z25, 8*(j)+5); \
	IQ3SE4(j, 4, Z24, Z21, 8*(j)+6); \
	IQ3SE4(j, 5, Z25, Z24, 8*(j)+7); \
	IQ3SE4(j, 6, Z21, Z21, 8*(j)+8); \
	IQ3SE4(j, 7, Z24, Z24, 8*(j)+9); \
	IQ3SLS(j, SI, Z23); \
	IQ3SFMA(Z17, Z23, Z16, 4*(j)(R10), Z26, a0); \
	IQ3SFMA(Z18, Z23, Z16, 4*(j)(R10)(DX*1), Z27, a1); \
	IQ3SFMA(Z19, Z23, Z16, 4*(j)(R10)(DX*2), Z28, a2); \
	IQ3SFMA(Z20, Z23, Z16, 4*(j)(R10)(BX*1), Z31, a3)

// IQ3SG4INIT points DI, R11, R12, R14 at the four tokens' codes, R9 at
// m8, R10 at the block scales, SI at the group (saved in R15) and AX at
// iq3sGrid15, CX the super-blocks, and clears the sixteen accumulators.
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
	LEAQ   iq3sGrid15<>(SB), AX; \
	IQ3SZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7); \
	IQ3SZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

// IQ3SG4NEXT steps the pointers to the next super-block.
#define IQ3SG4NEXT \
	ADDQ $1760, SI; \
	ADDQ $256, DI; \
	ADDQ $256, R11; \
	ADDQ $256, R12; \
	ADDQ $256, R14; \
	ADDQ $32, R9; \
	ADDQ $32, R10

// IQ3SG4OUT sums token t's accumulators of blocks 0…3 (saved at frame
// offset 256t) and 4…7 (a4…a7) as IQ3SHSUM does and stores them at dst.
#define IQ3SG4OUT(t, a4, a5, a6, a7, dst) \
	VMOVUPS 256*t(SP), Z21; \
	VMOVUPS 256*t+64(SP), Z22; \
	VMOVUPS 256*t+128(SP), Z23; \
	VMOVUPS 256*t+192(SP), Z24; \
	IQ3SHSUM(Z21, Z22, Z23, Z24, a4, a5, a6, a7); \
	VMOVUPS Z21, dst

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
	IQ3SIDX(SI, 0, Z21)
	IQ3SIDX(SI, 1, Z24)
	VCVTPH2PS (SI), Z16
	IQ3SBLK4(0, Z0, Z4, Z8, Z12)
	IQ3SBLK4(1, Z1, Z5, Z9, Z13)
	IQ3SBLK4(2, Z2, Z6, Z10, Z14)
	IQ3SBLK4(3, Z3, Z7, Z11, Z15)
	IQ3SG4NEXT
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
	IQ3SIDX(SI, 32, Z21)
	IQ3SIDX(SI, 33, Z24)
	VCVTPH2PS (SI), Z16
	IQ3SBLK4(4, Z0, Z4, Z8, Z12)
	IQ3SBLK4(5, Z1, Z5, Z9, Z13)
	IQ3SBLK4(6, Z2, Z6, Z10, Z14)
	IQ3SBLK4(7, Z3, Z7, Z11, Z15)
	IQ3SG4NEXT
	DECQ CX
	JNZ  iq3sgloop1

	MOVQ ostride+56(FP), AX
	SHLQ $2, AX
	IQ3SG4OUT(0, Z0, Z1, Z2, Z3, (R13))
	IQ3SG4OUT(1, Z4, Z5, Z6, Z7, (R13)(AX*1))
	IQ3SG4OUT(2, Z8, Z9, Z10, Z11, (R13)(AX*2))
	LEAQ (AX)(AX*2), AX
	IQ3SG4OUT(3, Z12, Z13, Z14, Z15, (R13)(AX*1))
	ADDQ $64, R13
	MOVQ SI, R15               // the pass ended at the next group
	DECQ R8
	JMP  iq3sggroup

iq3sgend:
	VZEROUPPER
	RET
