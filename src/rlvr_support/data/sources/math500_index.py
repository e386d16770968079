"""HuggingFaceH4/MATH-500's rows in order: each row's `unique_id`, `subject` and `level`, by row index.

A copy of MATH-500 that keeps only its problems and answers, and numbers them by their row in the hub
dataset (MMATH's `data_source_id`, data/sources/wheels.py), gets the hub's prompt ids and metadata back
from here, so that the `math500` converter gives it the records the hub gives. Read from a copy of OpenAI's
prm800k `prm800k/math_splits/test.jsonl` (the file the dataset card names as its source; problems of
Hendrycks et al.'s MATH, MIT License) whose sha256, 35dc41080a3680858b27fa7e0533d2d547825316fc5dafe5d316f4ccc5a06132,
is the one prm800k's Git LFS pointer names. Each entry: `<unique_id without test/ and .json>:<level>`.
"""

from __future__ import annotations

SUBJECTS = {"algebra": "Algebra", "counting_and_probability": "Counting & Probability", "geometry": "Geometry",
            "intermediate_algebra": "Intermediate Algebra", "number_theory": "Number Theory",
            "prealgebra": "Prealgebra", "precalculus": "Precalculus"}

ROWS = """
    precalculus/807:2 intermediate_algebra/1994:5 algebra/2584:3 number_theory/572:3 algebra/1349:2
    prealgebra/1622:2 number_theory/515:3 precalculus/927:4 algebra/2036:3 prealgebra/1139:5 number_theory/1032:3
    intermediate_algebra/1197:5 number_theory/737:5 geometry/248:2 precalculus/1303:1 precalculus/990:5
    intermediate_algebra/134:1 precalculus/1199:4 geometry/434:1 intermediate_algebra/1000:3 algebra/1098:3
    intermediate_algebra/607:3 algebra/1837:5 algebra/2193:5 algebra/2427:5 intermediate_algebra/1388:5
    counting_and_probability/525:5 prealgebra/1840:2 precalculus/779:2 counting_and_probability/666:2
    number_theory/864:3 prealgebra/1302:4 counting_and_probability/134:4 algebra/1072:4
    counting_and_probability/119:4 number_theory/627:2 intermediate_algebra/428:2 geometry/967:3 algebra/24:1
    number_theory/45:3 prealgebra/930:2 geometry/627:4 algebra/2214:2 intermediate_algebra/1454:5 prealgebra/1558:5
    geometry/178:3 precalculus/285:2 algebra/305:5 algebra/1265:2 prealgebra/1388:4 number_theory/1055:5
    intermediate_algebra/1217:2 prealgebra/951:5 precalculus/1105:2 prealgebra/572:2 algebra/187:4 algebra/769:3
    intermediate_algebra/1168:2 algebra/722:1 prealgebra/1247:2 intermediate_algebra/956:5
    intermediate_algebra/1247:3 precalculus/675:5 intermediate_algebra/279:5 precalculus/1146:4 prealgebra/1747:1
    algebra/2046:3 prealgebra/1233:4 precalculus/1313:4 intermediate_algebra/207:4 number_theory/46:2
    number_theory/516:4 geometry/456:2 algebra/2253:4 precalculus/24313:2 counting_and_probability/1114:4
    intermediate_algebra/623:2 algebra/1004:1 intermediate_algebra/47:4 prealgebra/192:1
    intermediate_algebra/1849:5 algebra/1035:3 algebra/2700:5 intermediate_algebra/2046:2 algebra/893:4
    geometry/353:4 prealgebra/307:1 algebra/567:1 algebra/892:5 number_theory/357:4 prealgebra/1761:3
    algebra/2023:3 counting_and_probability/377:4 algebra/873:4 prealgebra/1646:5 precalculus/34:2
    intermediate_algebra/662:5 prealgebra/105:1 prealgebra/1924:2 precalculus/1300:3 geometry/183:5
    intermediate_algebra/582:5 intermediate_algebra/431:1 intermediate_algebra/558:5 intermediate_algebra/362:4
    prealgebra/1804:3 intermediate_algebra/515:2 number_theory/914:2 intermediate_algebra/894:3 precalculus/44:5
    intermediate_algebra/345:4 counting_and_probability/23957:3 algebra/2058:4 algebra/2593:2
    intermediate_algebra/1898:3 counting_and_probability/1060:2 algebra/2157:2 algebra/2251:2
    intermediate_algebra/232:5 prealgebra/1733:3 intermediate_algebra/128:2 prealgebra/505:2 algebra/1332:3
    geometry/283:4 algebra/972:4 algebra/2232:4 intermediate_algebra/1063:4 number_theory/847:3 algebra/661:3
    geometry/1140:5 number_theory/753:4 algebra/246:4 prealgebra/1686:3 prealgebra/1807:3
    intermediate_algebra/1126:4 prealgebra/1297:5 intermediate_algebra/2022:5 number_theory/1257:4
    counting_and_probability/430:4 intermediate_algebra/1151:3 number_theory/156:4 number_theory/612:1
    counting_and_probability/159:5 precalculus/477:3 precalculus/43:1 intermediate_algebra/1408:5 algebra/1519:3
    intermediate_algebra/966:5 algebra/988:1 number_theory/931:2 intermediate_algebra/964:5 precalculus/986:5
    geometry/172:5 counting_and_probability/230:4 geometry/880:5 counting_and_probability/803:4 precalculus/117:3
    intermediate_algebra/1410:2 algebra/2570:4 algebra/621:4 number_theory/521:2 algebra/1255:2 prealgebra/1655:5
    algebra/2517:5 precalculus/697:2 prealgebra/1356:4 prealgebra/1003:5 algebra/478:1
    counting_and_probability/181:5 geometry/802:2 algebra/297:5 prealgebra/1272:1 algebra/841:1 algebra/686:5
    algebra/351:3 intermediate_algebra/991:2 number_theory/598:3 geometry/65:3 prealgebra/1113:2 precalculus/659:4
    prealgebra/1908:3 algebra/1275:3 prealgebra/1922:2 algebra/1082:4 intermediate_algebra/183:5 algebra/1214:1
    number_theory/978:4 algebra/2199:1 algebra/733:5 geometry/702:5 counting_and_probability/51:5 algebra/109:2
    geometry/221:3 intermediate_algebra/1422:3 intermediate_algebra/2196:5 intermediate_algebra/591:4
    algebra/1937:1 number_theory/838:5 counting_and_probability/508:3 prealgebra/1907:2 prealgebra/2086:4
    number_theory/149:4 algebra/291:5 intermediate_algebra/1555:3 intermediate_algebra/1510:5 precalculus/263:3
    precalculus/541:2 counting_and_probability/389:2 number_theory/1201:3 number_theory/234:2 prealgebra/378:4
    prealgebra/1555:2 algebra/2102:3 intermediate_algebra/102:4 counting_and_probability/765:5 algebra/907:4
    prealgebra/1436:4 number_theory/417:4 algebra/864:2 counting_and_probability/282:4 prealgebra/1961:5
    number_theory/89:3 geometry/547:4 number_theory/183:3 precalculus/190:4 algebra/2159:3
    counting_and_probability/71:3 precalculus/819:3 precalculus/1056:4 prealgebra/2057:4 intermediate_algebra/986:4
    algebra/1578:4 intermediate_algebra/1354:5 precalculus/441:2 intermediate_algebra/1837:3 prealgebra/153:4
    precalculus/989:4 intermediate_algebra/337:1 algebra/975:5 geometry/229:5 prealgebra/874:4 algebra/1143:5
    algebra/2626:5 geometry/254:2 prealgebra/1251:5 intermediate_algebra/1210:4 algebra/1787:2
    intermediate_algebra/1123:3 precalculus/920:4 number_theory/1065:4 algebra/1934:4
    counting_and_probability/894:5 algebra/2064:5 prealgebra/1458:3 counting_and_probability/1009:5
    precalculus/452:2 prealgebra/1995:3 geometry/473:4 algebra/694:3 intermediate_algebra/149:1 precalculus/580:3
    geometry/347:3 prealgebra/1317:1 geometry/483:4 geometry/826:5 algebra/524:2 prealgebra/1742:3 geometry/226:1
    number_theory/466:1 counting_and_probability/913:3 algebra/2551:1 number_theory/634:4 number_theory/533:4
    prealgebra/993:4 geometry/686:5 algebra/346:2 algebra/1282:5 prealgebra/1834:4 number_theory/691:3
    prealgebra/1512:5 number_theory/1287:4 prealgebra/260:4 algebra/1184:4 prealgebra/1787:3 precalculus/768:5
    intermediate_algebra/1411:4 intermediate_algebra/960:5 number_theory/631:5 precalculus/1172:5
    intermediate_algebra/1300:3 algebra/634:3 counting_and_probability/25149:4 intermediate_algebra/90:4
    algebra/2486:5 number_theory/488:4 precalculus/1201:3 intermediate_algebra/754:2 number_theory/1172:4
    precalculus/881:4 geometry/1097:4 counting_and_probability/339:4 prealgebra/1044:5 prealgebra/465:4
    geometry/965:5 intermediate_algebra/446:3 algebra/2257:4 intermediate_algebra/1544:5 precalculus/695:2
    geometry/711:5 number_theory/203:3 algebra/1842:2 number_theory/911:4 intermediate_algebra/1714:1
    prealgebra/1423:5 geometry/1108:2 algebra/791:4 algebra/276:2 intermediate_algebra/2152:5 algebra/2735:2
    algebra/425:3 geometry/947:5 prealgebra/954:5 algebra/1936:3 counting_and_probability/870:5 geometry/465:4
    geometry/73:2 precalculus/742:2 intermediate_algebra/117:5 algebra/2176:5 prealgebra/1973:4
    counting_and_probability/216:5 algebra/509:5 intermediate_algebra/190:4 intermediate_algebra/776:4
    algebra/1457:3 number_theory/483:4 algebra/2592:1 prealgebra/1730:3 number_theory/368:3
    intermediate_algebra/1566:3 precalculus/801:3 algebra/858:4 prealgebra/1238:3 counting_and_probability/737:2
    intermediate_algebra/1572:2 algebra/1529:3 algebra/1338:4 algebra/1547:3 counting_and_probability/116:2
    counting_and_probability/238:4 number_theory/686:2 precalculus/826:3 precalculus/1281:4
    counting_and_probability/1014:4 algebra/529:4 intermediate_algebra/1166:5 algebra/1078:5 prealgebra/1353:5
    intermediate_algebra/860:2 intermediate_algebra/1407:4 precalculus/96:3 intermediate_algebra/1405:4
    counting_and_probability/14:1 algebra/251:2 intermediate_algebra/690:4 number_theory/820:5 number_theory/109:4
    algebra/1199:4 geometry/106:2 prealgebra/1187:2 precalculus/1289:1 intermediate_algebra/955:5 geometry/846:2
    algebra/2264:5 algebra/1303:1 number_theory/427:5 geometry/538:4 number_theory/1185:3 prealgebra/1743:3
    prealgebra/1865:4 intermediate_algebra/1992:4 counting_and_probability/188:5 intermediate_algebra/1111:5
    algebra/101:4 prealgebra/1298:2 prealgebra/2066:5 algebra/170:3 algebra/849:1 algebra/1031:5 geometry/795:3
    algebra/853:5 algebra/2277:5 precalculus/902:5 algebra/518:3 intermediate_algebra/1791:5 algebra/114:1
    prealgebra/631:3 prealgebra/977:2 prealgebra/1991:4 prealgebra/1784:2 geometry/817:5
    intermediate_algebra/1806:5 precalculus/1291:3 number_theory/928:4 counting_and_probability/761:1
    prealgebra/1572:4 number_theory/132:1 algebra/1960:4 precalculus/398:5 intermediate_algebra/1797:4
    prealgebra/65:2 prealgebra/1227:3 intermediate_algebra/2146:4 algebra/2680:2 algebra/2391:4 number_theory/769:5
    precalculus/681:3 algebra/776:5 algebra/1796:5 precalculus/145:4 precalculus/625:3 precalculus/1202:5
    intermediate_algebra/2015:5 number_theory/1002:5 algebra/1339:5 precalculus/1133:5 geometry/843:3
    algebra/2743:2 intermediate_algebra/121:4 intermediate_algebra/1014:3 prealgebra/2019:2 precalculus/499:4
    intermediate_algebra/1462:5 number_theory/410:2 prealgebra/1640:5 algebra/2043:5 counting_and_probability/10:4
    algebra/1553:3 number_theory/255:2 intermediate_algebra/199:3 algebra/2080:3 prealgebra/2037:4 algebra/1343:4
    algebra/668:4 counting_and_probability/731:5 intermediate_algebra/1779:4 algebra/2430:4 prealgebra/996:1
    number_theory/1000:5 algebra/2789:1 number_theory/13:5 number_theory/459:3 algebra/1814:2 algebra/2476:2
    precalculus/323:5 counting_and_probability/190:2 intermediate_algebra/1102:1 number_theory/342:1
    prealgebra/805:3 algebra/2780:5 prealgebra/914:4 algebra/824:4 number_theory/679:2 algebra/1425:2
    intermediate_algebra/834:3 number_theory/72:4 precalculus/703:5 prealgebra/1114:2 algebra/224:4 algebra/435:3
    intermediate_algebra/158:5 prealgebra/846:3 algebra/2470:1 prealgebra/1930:5 intermediate_algebra/752:1
    counting_and_probability/1003:5 prealgebra/1252:2 number_theory/22:3 intermediate_algebra/1279:5
    number_theory/1128:5 precalculus/1252:2 intermediate_algebra/1467:5 number_theory/1090:5 precalculus/1082:3
    intermediate_algebra/101:3 counting_and_probability/199:2 geometry/477:3 number_theory/239:1 prealgebra/1203:5
    intermediate_algebra/1365:3 intermediate_algebra/1350:5 prealgebra/1128:5 precalculus/356:3 algebra/2779:5
    intermediate_algebra/1930:5 intermediate_algebra/1981:4 intermediate_algebra/1232:3 geometry/561:5
    intermediate_algebra/1508:5 geometry/615:4
""".split()


def math500_row(index: int) -> dict:
    """{unique_id, subject, level} of MATH-500's row `index` (0-499)."""
    if not 0 <= index < len(ROWS):
        raise ValueError(f"MATH-500 has rows 0-{len(ROWS) - 1}, not {index}")
    path, level = ROWS[index].split(":")
    return {"unique_id": f"test/{path}.json", "subject": SUBJECTS[path.split("/")[0]], "level": int(level)}
