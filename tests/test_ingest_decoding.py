"""Text that is not UTF-8: short Western sentences in Latin-1 / cp1252 are read as such, and longer text in
other encodings keeps the encoding charset-normalizer finds."""
import pytest

from knowledge.ingest.decoding import decode_text

WESTERN = [
    ("Le garçon a mangé une crème brûlée à la fenêtre.", "latin-1"),
    ("Nous avons déjà reçu la lettre de Noël.", "latin-1"),
    ("Müller aß süße Äpfel und trank Öl für größere Grüße.", "latin-1"),
    ("El niño comió piñata el año pasado, ¿verdad, señor?", "latin-1"),
    ("Mañana será él quien decida.", "latin-1"),
    ("A informação não está disponível até amanhã.", "latin-1"),
    ("Le café coûte 3 € — «très» cher…", "cp1252"),
    ("Straße", "latin-1"),
]

OTHER = [
    ("Проект Гелиос зависит от векторного движка Аврора. Мы работаем в Берлине и Шанхае.", "cp1251"),
    ("科斯特雷尔实验室开发了流明网关。我们在上海有一个办公室。", "gb18030"),
    ("知识图谱和实体规范化的离线评测工具。我们在上海有一个办公室，张敏负责离线评测。", "gbk"),
    ("東京の天気は晴れです。明日は雨が降るでしょう。", "shift_jis"),
    ("Καλημέρα κόσμε, τι κάνεις σήμερα;", "cp1253"),
    ("Zażółć gęślą jaźń, proszę.", "cp1250"),
]


@pytest.mark.parametrize("text,encoding", WESTERN)
def test_short_western_text_is_read_as_cp1252(text: str, encoding: str):
    decoded = decode_text(text.encode(encoding))
    assert decoded.text == text and decoded.encoding == "cp1252"
    assert decoded.notice == "not UTF-8: decoded as cp1252"


@pytest.mark.parametrize("text,encoding", OTHER)
def test_other_encodings_keep_their_guess(text: str, encoding: str):
    assert decode_text(text.encode(encoding)).text == text


def test_utf8_is_not_second_guessed():
    assert decode_text("Garçon, crème brûlée".encode("utf-8")).encoding == "utf-8"
