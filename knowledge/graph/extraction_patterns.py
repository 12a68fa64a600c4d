"""Word lists, gazetteers and precompiled regexes for the rule-based entity/relation extractor.

Everything here is static data so that the ``extraction`` package holds only logic.  Gazetteer keys are
``normalize_name`` keys (case-folded, spacing/punctuation and legal suffixes removed).
"""
from __future__ import annotations

import re

from knowledge.graph.normalize import normalize_name

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RE = re.compile(f"[{CJK}]")


def _keys(words: str | list[str] | tuple[str, ...]) -> frozenset[str]:
    items = words.split("|") if isinstance(words, str) else words
    return frozenset(k for k in (normalize_name(w) for w in items) if k)


def _words(words: str) -> frozenset[str]:
    return frozenset(w for w in words.split() if w)


# --------------------------------------------------------------------------------------------
# English function words
# --------------------------------------------------------------------------------------------

MONTHS_DAYS = _words(
    "January February March April May June July August September October November December "
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun "
    "Today Tomorrow Yesterday Tonight Spring Summer Autumn Fall Winter"
)

# Capitalised words that never start an entity (lower-cased for lookup).
STOPWORDS = frozenset(w.lower() for w in _words(
    "A An The This That These Those There Here Then Than Thus Hence Therefore However Moreover "
    "Furthermore Meanwhile Nevertheless Nonetheless Otherwise Instead Also Additionally Finally "
    "First Firstly Second Secondly Third Thirdly Next Last Lastly Later Earlier Now Today Still Yet "
    "Although Though Because Since While Whereas When Whenever Where Wherever Whether If Unless Until "
    "Once After Before During Despite Within Without Across Along Among Around Against Above Below "
    "Between Beyond Into Onto Upon Over Under Through Throughout Toward Towards Via Per "
    "In On At By For From Of To With About As Like Near Inside Outside Except "
    "And Or But Nor So Not No Yes Both Either Neither Each Every Any All Some Many Much More Most "
    "Few Several Such Other Another Same Own Only Just Even Very Quite Rather Almost Already Always "
    "Never Often Sometimes Usually Perhaps Maybe Indeed Overall Generally Typically Similarly "
    "Likewise Accordingly Consequently Specifically Notably Importantly Interestingly Unfortunately "
    "Fortunately Surprisingly Clearly Obviously Recently Currently Previously Initially Eventually "
    "Ultimately Originally Basically Essentially Actually Really Simply Briefly "
    "I Me My Mine We Us Our Ours You Your Yours He Him His She Her Hers It Its They Them Their Theirs "
    "Who Whom Whose Which What Why How Whatever Whichever Whoever "
    "Is Are Was Were Be Been Being Am Do Does Did Done Have Has Had Having Will Would Shall Should "
    "Can Could May Might Must Let Lets Please Thanks Thank "
    "Note Notes See Figure Fig Table Section Chapter Step Page Appendix Example Examples Eg Ie Etc "
    "Summary Introduction Conclusion Conclusions Abstract Background Overview Results Discussion "
    "Method Methods Goal Goals Question Answer Q A Yes No Okay OK Hi Hello Dear "
    "Mr Mrs Ms Dr Prof Sir Madam Miss Mx "
    "One Two Three Four Five Six Seven Eight Nine Ten Hundred Thousand Million Billion "
    "Chinese English American British European Asian African French German Japanese Korean "
    "Indian Russian Canadian Australian Italian Spanish Western Eastern Northern Southern"
)) | frozenset(w.lower() for w in MONTHS_DAYS)

# Adjectives that start many sentences but also real names ("New York"): dropped at sentence start
# unless the whole name is known, and never an entity on their own.
INITIAL_STOPWORDS = frozenset(w.lower() for w in _words(
    "New Old Good Bad Big Small Great High Low Long Short Full Major Minor Key Main Common Open Free "
    "Dense Sparse Simple Basic General Special Early Late Modern Recent Future Current Final Total "
    "Global Local Public Private Real True False Best Better Top Bottom Left Right Red Blue Green Black "
    "White Fast Slow Hard Soft Easy Hot Cold Sample Data Contact Related Further Other Various "
    "Use Uses Add Keep Run Check Set Get Make Call Send Move Stop Start Read Write Create Remove Delete "
    "Update Install Deploy Enable Disable Configure Test Verify Ensure Select Choose Compare Replace "
    "Migrate Ask Tell Try Review Prefer Avoid Drop Pick Wait Announce Swap Rollback Point Identify "
    "Monitor Track Log Go Email Ping Restart Retry Scale Upgrade Downgrade Export Import Load Save Fix "
    "Apply Follow Schedule Tag Notify Confirm Record Define Describe Explain Consider Find Look Open"
))

# Words that are dropped when they begin a sentence, even if followed by more capitalised words.
COMMON_SUFFIX_RE = re.compile(
    r"(?:ing|ly|ed|ers|ists|ings|ies|tion|tions|sion|sions|ment|ments|ness|ity|ities|ance|ances|"
    r"ence|ences|ism|isms|ive|ous|ful|less|able|ible|ical|ally|ward|wards|ship|ships)$"
)

TITLES = frozenset(w.lower() for w in _words(
    "Dr Prof Professor Mr Mrs Ms Miss Mx Sir Dame Lord Lady Madam Mme Mlle Rev Fr Hon Capt Gen Col "
    "Sen Rep Gov Pres President Chairman Chairwoman Chair CEO CTO CFO COO CIO CSO VP Founder Cofounder "
    "Co-founder Director Minister Chancellor Senator Governor Mayor Judge Justice Dean Engineer "
    "Researcher Scientist Dr. Prof."
))
# Titles that reliably end with a period and never end a sentence.
ABBREVIATIONS = frozenset(w.lower() for w in _words(
    "Dr Prof Mr Mrs Ms Mx St Sr Jr vs etc al eg ie e.g i.e cf approx No Nos Vol Fig Figs Eq Eqs "
    "Sec Ch Pp pp Mt Ft Rev Gen Col Capt Sen Rep Gov Hon Fr Mme Mlle Dept Univ Assn Jan Feb Mar Apr "
    "Jun Jul Aug Sep Sept Oct Nov Dec U.S U.K U.N E.U"
))

LEGAL_SUFFIXES = frozenset(w.lower() for w in _words(
    "Inc Incorporated Corp Corporation Ltd Limited LLC LLP LP PLC Co GmbH AG SA SAS SE NV BV KK "
    "Pty Oy AB ASA"
))
# Multi-letter legal suffix abbreviations that keep their trailing period in the span.
LEGAL_ABBREV = frozenset(w.lower() for w in _words("Inc Corp Ltd Co Pty"))

CONNECTORS = frozenset(["of", "for", "de", "del", "della", "di", "da", "du", "la", "le", "van", "von",
                        "der", "den", "y", "&", "and"])
NAME_PARTICLES = frozenset(["de", "del", "della", "di", "da", "du", "la", "le", "van", "von", "der", "den"])
# Heads that may be followed by "of"/"for"/"&"/"and" inside one name ("University of Tokyo").
OF_HEADS = frozenset(w.lower() for w in _words(
    "University Institute Institution Bank Department Ministry School College Academy Museum Society "
    "Association Council Federation League Republic Kingdom Board Office Bureau Center Centre "
    "Laboratory Lab Labs Foundation Church Cathedral Hall Gulf Sea Isle Isles Cape Lake Mount Port "
    "State States Province City Conference Summit Congress Commission Committee Agency Authority "
    "Court House Order Union Alliance Organization Organisation Fund Corps Chamber Journal Festival "
    "Battle War Treaty Bay Straits Sisters Brothers Sons Johnson Procter Ernst Marks Barnes Simon "
    "Standard Tiffany Arm Hewlett"
))

ORG_HEADS = frozenset(w.lower() for w in _words(
    "University Universität Université Institute Institution Lab Labs Laboratory Laboratories "
    "Foundation Association Agency Ministry Department Bank College School Academy Council Committee "
    "Society Company Corporation Technologies Technology Research Capital Ventures Partners Motors "
    "Airlines Airways Pharmaceuticals Pharma Networks Studios Media Press Group Holdings Consortium "
    "Commission Bureau Office Center Centre Federation Union Alliance Organization Organisation Fund "
    "Authority Agency Enterprises Industries Solutions Robotics Dynamics Analytics Semiconductor "
    "Electronics Telecom Communications Bancorp AI Intelligence Hospital Clinic Court Parliament "
    "Congress Senate Government Police Army Navy Party Team Club"
))
ORG_FIRST = frozenset(w.lower() for w in _words(
    "University Institute Bank Ministry Department Academy College School Bureau Office Federation "
    "Association Commission Council Society League"
))
PRODUCT_HEADS = frozenset(w.lower() for w in _words(
    "Engine Gateway DB Database Server Platform SDK API APIs Framework Studio OS Toolkit Kit Library "
    "Suite App Apps Assistant Cloud Store Index Service Services Browser Editor Console Runtime "
    "Compiler Pipeline Agent Bot Chatbot Pro Max Mini Ultra Plus Lite Phone Pad Watch Book Drive "
    "Hub Vault Cache Queue Router Proxy Dashboard Portal CLI Plugin Extension Protocol Chip Processor "
    "GPU CPU TPU Accelerator Model Models Vector Search Graph Mesh Stack Lake Warehouse Connector "
    "Scheduler Orchestrator Notebook Workbench Copilot Edition"
))
PRODUCT_FIRST = frozenset(["project", "operation", "codename"])
EVENT_HEADS = frozenset(w.lower() for w in _words(
    "Conference Summit Festival War Olympics Games Expo Championship Championships Cup Forum "
    "Symposium Workshop Hackathon Congress Convention Awards Award Week Revolution Election Crisis "
    "Tournament Marathon Meetup Fair Show Ceremony Keynote Launch Incident Outage Pandemic Treaty"
))
PLACE_HEADS = frozenset(w.lower() for w in _words(
    "City County Province Prefecture Region District Township Village River Mountains Mountain Lake "
    "Island Islands Bay Valley Street Road Avenue Boulevard Square Park Coast Sea Ocean Desert Peninsula "
    "Canyon Plateau Harbor Harbour Heights Hills Springs Beach Airport Station Bridge"
))
HEAD_WORDS = ORG_HEADS | PRODUCT_HEADS | EVENT_HEADS | PLACE_HEADS
PLACE_FIRST = frozenset(["mount", "lake", "port", "cape", "gulf", "isle", "fort", "saint", "st", "san",
                         "santa", "los", "las", "new", "north", "south", "east", "west"])

FIRST_NAMES = frozenset(w.lower() for w in _words(
    "James John Robert Michael William David Richard Joseph Thomas Charles Christopher Daniel Matthew "
    "Anthony Mark Donald Steven Paul Andrew Joshua Kenneth Kevin Brian George Timothy Ronald Edward "
    "Jason Jeffrey Ryan Jacob Gary Nicholas Eric Jonathan Stephen Larry Justin Scott Brandon Benjamin "
    "Samuel Gregory Alexander Frank Patrick Raymond Jack Dennis Jerry Tyler Aaron Jose Adam Nathan "
    "Henry Douglas Zachary Peter Kyle Walter Ethan Jeremy Harold Keith Christian Roger Noah Gerald "
    "Carl Terry Sean Austin Arthur Lawrence Jesse Dylan Bryan Joe Jordan Billy Bruce Albert Willie "
    "Gabriel Logan Alan Juan Wayne Roy Ralph Randy Eugene Vincent Russell Elijah Louis Bobby Philip "
    "Johnny Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Nancy Lisa Betty "
    "Margaret Sandra Ashley Kimberly Emily Donna Michelle Dorothy Carol Amanda Melissa Deborah "
    "Stephanie Rebecca Sharon Laura Cynthia Kathleen Amy Shirley Angela Helen Anna Brenda Pamela "
    "Nicole Emma Samantha Katherine Christine Debra Rachel Catherine Carolyn Janet Ruth Maria Heather "
    "Diane Virginia Julie Joyce Victoria Olivia Kelly Christina Lauren Joan Evelyn Judith Megan Cheryl "
    "Andrea Hannah Martha Jacqueline Frances Gloria Ann Teresa Kathryn Sara Janice Jean Alice Madison "
    "Doris Abigail Julia Judy Grace Denise Amber Marilyn Beverly Danielle Theresa Sophia Marie Diana "
    "Brittany Natalie Isabella Charlotte Rose Alexis Kayla Alex Sam Tim Tom Bob Bill Mike Jim Ben Dan "
    "Max Leo Lucas Liam Oliver Mia Ava Chloe Zoe Lily Ella Nora Ada Alan Grace Linus Guido Elon Satya "
    "Sundar Jensen Sergey Larry Jeff Steve Marc Reid Dario Demis Ilya Greg Yann Geoffrey Yoshua Andrej "
    "Fei-Fei Andrew Kai Jun Hiroshi Yuki Akira Raj Priya Ahmed Mohammed Muhammad Fatima Omar Ali "
    "Carlos Luis Miguel Sofia Lucia Hans Klaus Anna Pierre Jean Marie Francois Giovanni Marco "
    "Ivan Olga Sergei Dmitri Natasha Ingrid Lars Sven Erik Astrid Anders Bjorn Alice Bob Carol Dave "
    "Eve Mallory Trent Kenji Takeshi Haruto Hiroki Daisuke Satoshi Yuto Sakura Aiko Yui Hana Naoko "
    "Tomasz Piotr Krzysztof Agnieszka Katarzyna Jan Lukas Leon Felix Paul Jonas Finn Elias Lena Mila "
    "Emilia Clara Sophie Amelie Matteo Alessandro Giulia Chiara Francesca Pablo Diego Javier Alejandro "
    "Camila Valentina Mateo Santiago Isabel Ines Joao Rafael Gabriela Arjun Rahul Vikram Ananya Deepa "
    "Sanjay Amit Neha Pooja Ravi Suresh Hassan Yusuf Aisha Layla Noor Mehmet Emre Elif Zeynep Nikolai "
    "Alexei Anastasia Tatiana Boris Oleg Pavel Ji-woo Min-jun Seo-yeon Hyun Jae Soo Minh Linh Thanh "
    "Nguyen Siddharth Priyanka Ingrid Freya Nils Maja Astrid Oskar Emil Hugo Louise Camille Chloe Manon "
    "Theo Jules Mathis Nathalie Claire Brigitte Heinz Jurgen Wolfgang Dieter Ursula Greta Otto"
))

PINYIN_SURNAMES = frozenset(w.lower() for w in _words(
    "Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Lin Luo Gao Zheng Liang "
    "Xie Song Tang Han Feng Deng Cao Peng Zeng Xiao Tian Dong Pan Yuan Cai Jiang Yu Du Ye Cheng Wei "
    "Su Lu Ding Ren Shen Yao Jin Qian Fan Fu Zou Xiong Bai Meng Qin Qiu Hou Jiang Shi Mao Hao Kong "
    "Lei Long Duan Tan Lai Wen Gu Kang Yin Xue Yan Niu Fang Qi Ge Chang Zhong Lan Mo Dai"
))

# --------------------------------------------------------------------------------------------
# English gazetteers (normalize_name keys)
# --------------------------------------------------------------------------------------------

ORG_GAZ = _keys(
    "OpenAI|Microsoft|Google|Alphabet|Anthropic|Meta|Facebook|Amazon|Alibaba|Tencent|Baidu|Huawei|"
    "ByteDance|Xiaomi|JD.com|Meituan|NetEase|Pinduoduo|Didi|ZTE|Lenovo|BYD|SenseTime|iFlytek|"
    "Zhipu|DeepSeek|Moonshot AI|Nvidia|NVIDIA|Intel|AMD|IBM|Oracle|Samsung|Sony|Tesla|SpaceX|Netflix|"
    "Uber|Airbnb|Twitter|LinkedIn|GitHub|GitLab|Hugging Face|HuggingFace|DeepMind|Google DeepMind|"
    "Mistral|Mistral AI|Cohere|Databricks|Snowflake|Salesforce|Adobe|Cisco|Qualcomm|TSMC|Beats|Stripe|"
    "Shopify|Spotify|PayPal|Walmart|Toyota|BMW|Siemens|SAP|Accenture|Deloitte|McKinsey|Bloomberg|"
    "Reuters|NASA|ESA|MIT|Stanford|Harvard|Caltech|Oxford|Cambridge|Tsinghua|Tsinghua University|"
    "Peking University|Fudan University|Zhejiang University|CMU|Berkeley|UC Berkeley|ETH Zurich|"
    "United Nations|UN|WHO|FBI|CIA|NSF|OECD|IMF|World Bank|NATO|IEEE|ACM|W3C|Mozilla|Wikipedia|"
    "Wikimedia|Red Hat|Canonical|Atlassian|Dropbox|Slack Technologies|Zoom Video|Yahoo|eBay|Alibaba Cloud|"
    "AWS|Amazon Web Services|Microsoft Research|Google Research|Meta AI|FAIR|xAI|Inflection|Perplexity|"
    "Stability AI|Midjourney|Character AI|Scale AI|Palantir|Arm|ARM|Broadcom|Micron|Dell|HP|Xerox|"
    "Boeing|Airbus|Ford|GM|General Motors|Volkswagen|Honda|Nissan|Pfizer|Moderna|Goldman Sachs|"
    "JPMorgan|Morgan Stanley|Visa|Mastercard|Coca-Cola|PepsiCo|Nike|Disney|Warner Bros"
)
# Gazetteer entries that are also ordinary words: need a company cue to be ORG.
AMBIGUOUS_ORG = _keys("Apple|Amazon|Oracle|Meta|Arm|Visa|Shell|Square|Target|Blackberry|Orange|Jaguar|Mistral")
# ... of which these are treated as known names even at the start of a sentence.
AMBIGUOUS_ORG_KNOWN = _keys("Apple|Amazon|Oracle|Meta")
PLACE_GAZ = _keys(
    "China|USA|United States|United States of America|US|U.S.|America|UK|U.K.|United Kingdom|Britain|"
    "Great Britain|England|Scotland|Wales|Ireland|France|Germany|Japan|Korea|South Korea|North Korea|"
    "India|Canada|Australia|New Zealand|Brazil|Mexico|Argentina|Russia|Italy|Spain|Portugal|"
    "Netherlands|Belgium|Switzerland|Austria|Sweden|Norway|Denmark|Finland|Poland|Greece|Turkey|Israel|"
    "Egypt|Nigeria|Kenya|South Africa|Saudi Arabia|UAE|Iran|Iraq|Pakistan|Bangladesh|Indonesia|"
    "Malaysia|Thailand|Vietnam|Philippines|Singapore|Taiwan|Hong Kong|Macau|Ukraine|Europe|Asia|Africa|"
    "North America|South America|Latin America|Antarctica|Oceania|Middle East|EU|European Union|"
    "Beijing|Shanghai|Shenzhen|Hangzhou|Guangzhou|Chengdu|Wuhan|Nanjing|Xi'an|Xian|Tianjin|Chongqing|"
    "Suzhou|Xiamen|Qingdao|Dalian|Harbin|Changsha|Zhengzhou|Hefei|Kunming|Berlin|Munich|Hamburg|"
    "Frankfurt|Paris|Lyon|London|Manchester|Edinburgh|Dublin|Amsterdam|Brussels|Zurich|Geneva|Vienna|"
    "Prague|Warsaw|Stockholm|Oslo|Copenhagen|Helsinki|Madrid|Barcelona|Lisbon|Rome|Milan|Athens|"
    "Istanbul|Moscow|Kyiv|Kiev|Tokyo|Osaka|Kyoto|Seoul|Busan|Taipei|Bangkok|Hanoi|Jakarta|Manila|"
    "Kuala Lumpur|Mumbai|Delhi|New Delhi|Bangalore|Bengaluru|Hyderabad|Dubai|Abu Dhabi|Tel Aviv|"
    "Cairo|Lagos|Nairobi|Cape Town|Sydney|Melbourne|Toronto|Vancouver|Montreal|Ottawa|New York|"
    "New York City|NYC|San Francisco|Los Angeles|Seattle|Boston|Chicago|Austin|Houston|Dallas|Miami|"
    "Atlanta|Denver|Washington|Washington D.C.|Philadelphia|Pittsburgh|San Diego|San Jose|Cupertino|"
    "Mountain View|Palo Alto|Menlo Park|Redmond|Sunnyvale|Santa Clara|Silicon Valley|Bay Area|"
    "California|Texas|Massachusetts|Florida|Oregon|Nevada|Arizona|Colorado|Virginia|Ontario|Quebec|"
    "Bavaria|Guangdong|Zhejiang|Jiangsu|Sichuan|Hubei|Shandong|Fujian|Yunnan|Tibet|Xinjiang|Inner Mongolia|"
    "Kraków|Krakow|Wrocław|Wroclaw|Gdańsk|Gdansk|Zürich|München|Köln|Cologne|Düsseldorf|Stuttgart|"
    "Malmö|Göteborg|Gothenburg|Montréal|Québec|São Paulo|Bogotá|Medellín|Reykjavík|Tallinn|Riga|Vilnius|"
    "Budapest|Bucharest|Belgrade|Zagreb|Ljubljana|Bratislava|Porto|Valencia|Seville|"
    "Sao Paulo|Rio de Janeiro|Buenos Aires|Mexico City|Lima|Bogota|Santiago|Auckland|Reykjavik"
)
PRODUCT_GAZ = _keys(
    "ChatGPT|GPT|GPT-3|GPT-3.5|GPT-4|GPT-4o|GPT-5|o1|o3|Claude|Gemini|Bard|Copilot|GitHub Copilot|"
    "LLaMA|Llama|Llama 2|Llama 3|Qwen|Mistral Large|Mixtral|DALL-E|Sora|Whisper|Midjourney|Stable Diffusion|"
    "BERT|RoBERTa|T5|iPhone|iPad|iPod|Mac|MacBook|iMac|Apple Watch|AirPods|Vision Pro|Windows|Android|"
    "iOS|macOS|Linux|Ubuntu|Debian|PostgreSQL|Postgres|MySQL|SQLite|MongoDB|Redis|Elasticsearch|"
    "OpenSearch|Kafka|Hadoop|Kubernetes|Docker|Terraform|PyTorch|TensorFlow|JAX|Keras|NumPy|"
    "pandas|scikit-learn|pgvector|FAISS|Milvus|Qdrant|Weaviate|Pinecone|Chroma|Neo4j|LangChain|"
    "LlamaIndex|Chrome|Chromium|Firefox|Safari|Azure|Google Cloud|Excel|PowerPoint|Outlook|"
    "Slack|Zoom|WeChat|Weixin|Taobao|Alipay|Douyin|TikTok|Instagram|WhatsApp|YouTube|Gmail|Bing|"
    "Xbox|PlayStation|Kindle|Alexa|Siri|Cortana|Bedrock|SageMaker|Vertex AI|Python|Java|"
    "JavaScript|TypeScript|Golang|Kotlin|Scala|Haskell|Erlang|Elixir|PHP|Perl|"
    "MATLAB|Jupyter|VS Code|Visual Studio|Git|Node.js|React|Vue|Angular|Django|Flask|FastAPI|"
    "Hibernate|NetworkX|igraph|CUDA|ROCm|Tesla Model 3|Cybertruck|"
    "Starlink|Falcon 9|Hololens|ERNIE|Ernie Bot|Tongyi Qianwen|Kimi|Doubao|GLM|ChatGLM"
)
CONCEPT_GAZ = _keys(
    "HNSW|RRF|BM25|TF-IDF|RAG|GraphRAG|LLM|LLMs|NLP|NLU|NER|ANN|kNN|KNN|PPR|PageRank|Personalized PageRank|"
    "IVF|PQ|LSH|SVM|CNN|RNN|LSTM|GAN|VAE|GNN|MLP|RLHF|DPO|PPO|SFT|LoRA|QLoRA|MoE|CoT|ReAct|OCR|ASR|TTS|"
    "SQL|NoSQL|ACID|CRUD|REST|gRPC|HTTP|HTTPS|JSON|YAML|XML|CSV|API|SDK|CLI|GUI|UI|UX|CI|CD|CI/CD|"
    "MCP|A2A|AGI|AI|ML|DL|RL|IR|KG|OLAP|OLTP|ETL|ELT|MVCC|WAL|CRDT|DAG|SLA|SLO|KPI|OKR|"
    "Transformer|Transformers|Attention|Self-Attention|Leiden|Louvain|Dijkstra|Fellegi-Sunter"
)
EVENT_GAZ = _keys(
    "NeurIPS|NIPS|ICML|ICLR|ACL|EMNLP|NAACL|CVPR|ICCV|ECCV|AAAI|IJCAI|KDD|SIGIR|SIGMOD|VLDB|WWW|CES|"
    "WWDC|Google I/O|re:Invent|Dreamforce|Olympics|World Cup|Super Bowl|Davos|World Economic Forum|"
    "Black Friday|Christmas|Easter|Thanksgiving|Ramadan|Diwali|Chinese New Year|Spring Festival|"
    "Mid-Autumn Festival|World War II|World War I|Cold War|COVID-19|Brexit"
)
PERSON_GAZ = _keys(
    "Sam Altman|Elon Musk|Satya Nadella|Sundar Pichai|Tim Cook|Mark Zuckerberg|Jeff Bezos|Bill Gates|"
    "Steve Jobs|Jensen Huang|Larry Page|Sergey Brin|Dario Amodei|Demis Hassabis|Ilya Sutskever|"
    "Geoffrey Hinton|Yann LeCun|Yoshua Bengio|Andrew Ng|Fei-Fei Li|Andrej Karpathy|Jack Ma|Pony Ma|"
    "Robin Li|Lei Jun|Ren Zhengfei|Zhang Yiming|Linus Torvalds|Guido van Rossum|Alan Turing|Ada Lovelace|"
    "Albert Einstein|Isaac Newton|Marie Curie|Charles Darwin"
)
# Gazetteer entries written as short all-caps acronyms ("WHO", "REST", "FAIR", "ANN") only count
# when the text also writes them in capitals, so "Who", "Rest" or "Fair" stay ordinary words.
CASED_ACRONYM_KEYS = frozenset(
    normalize_name(w) for group in (
        "OpenAI|Microsoft|NASA|ESA|MIT|CMU|UN|WHO|FBI|CIA|NSF|OECD|IMF|NATO|IEEE|ACM|FAIR|AWS|IBM|AMD|TSMC|SAP|"
        "BMW|BYD|ZTE|HP|GM",
        "HNSW|RRF|RAG|LLM|NLP|NLU|NER|ANN|PPR|IVF|PQ|LSH|SVM|CNN|RNN|GAN|VAE|GNN|MLP|RLHF|DPO|PPO|SFT|MOE|"
        "COT|OCR|ASR|TTS|SQL|ACID|CRUD|REST|HTTP|JSON|YAML|XML|CSV|API|SDK|CLI|GUI|UI|UX|CI|CD|MCP|AGI|AI|ML|"
        "DL|RL|IR|KG|OLAP|OLTP|ETL|ELT|MVCC|WAL|CRDT|DAG|SLA|SLO|KPI|OKR|US|UK|EU|UAE|NYC",
    ) for w in group.split("|") if w.isupper()
)

# Lowercase technical phrases recognised anywhere in English text (span excludes a plural "s").
CONCEPT_PHRASES = (
    "knowledge graph", "knowledge base", "vector search", "semantic search", "hybrid search",
    "lexical search", "full-text search", "keyword search", "dense retrieval", "sparse retrieval",
    "retrieval-augmented generation", "retrieval augmented generation", "reciprocal rank fusion",
    "entity resolution", "entity linking", "entity extraction", "relation extraction",
    "named entity recognition", "information retrieval", "information extraction",
    "machine learning", "deep learning", "reinforcement learning", "supervised learning",
    "unsupervised learning", "transfer learning", "federated learning", "contrastive learning",
    "natural language processing", "natural language understanding", "computer vision",
    "neural network", "graph neural network", "convolutional neural network", "large language model",
    "language model", "foundation model", "embedding model", "vector embedding", "word embedding",
    "approximate nearest neighbor", "approximate nearest neighbour", "nearest neighbor search",
    "personalized pagerank", "community detection", "graph traversal", "vector database",
    "vector index", "inverted index", "cosine similarity", "attention mechanism", "self-attention",
    "fine-tuning", "prompt engineering", "chain of thought", "chain-of-thought", "artificial intelligence",
    "generative ai", "quantum computing", "cloud computing", "edge computing", "blockchain",
    "data lake", "data warehouse", "stream processing", "batch processing", "microservices",
    "hierarchical navigable small world", "product quantization", "tokenization", "summarization",
    "question answering", "text classification", "sentiment analysis", "speech recognition",
    "knowledge distillation", "model quantization", "multi-agent system", "agentic workflow",
)
CONCEPT_PHRASE_RE = re.compile(
    r"(?<![\w-])(" + "|".join(
        re.escape(p).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]?")
        for p in sorted(CONCEPT_PHRASES, key=len, reverse=True)
    ) + r")(?:s|es)?(?![\w-])",
    re.IGNORECASE,
)

# --------------------------------------------------------------------------------------------
# Food
# --------------------------------------------------------------------------------------------

FOOD_WORDS = (
    "apple", "banana", "orange", "grape", "mango", "peach", "pear", "plum", "cherry", "strawberry",
    "blueberry", "raspberry", "lemon", "lime", "watermelon", "melon", "pineapple", "coconut", "kiwi",
    "avocado", "tomato", "potato", "carrot", "onion", "garlic", "cabbage", "lettuce", "spinach",
    "broccoli", "cucumber", "pumpkin", "mushroom", "rice", "noodle", "dumpling", "bread", "cheese",
    "butter", "pizza", "pasta", "spaghetti", "sushi", "ramen", "tofu", "chicken", "beef", "pork",
    "lamb", "salmon", "tuna", "shrimp", "egg", "milk", "yogurt", "coffee", "tea", "chocolate",
    "honey", "sugar", "flour", "oatmeal", "cereal", "sandwich", "burger", "hamburger", "taco",
    "burrito", "croissant", "bagel", "muffin", "pancake", "waffle", "cookie", "biscuit", "almond",
    "walnut", "peanut", "cinnamon", "vanilla", "blackberry",
)


def _food_alt(word: str) -> str:
    if word.endswith("y") and word[-2] not in "aeiou":
        return re.escape(word[:-1]) + r"(?:y|ies)"
    if word.endswith(("o", "ch", "sh")):
        return re.escape(word) + r"(?:es|s)?"
    return re.escape(word) + r"s?"


FOOD_RE = re.compile(
    r"(?<![\w-])(" + "|".join(_food_alt(w) for w in sorted(FOOD_WORDS, key=len, reverse=True)) + r")(?![\w-])",
    re.IGNORECASE,
)
# Nouns formed by a food word: "apple pie" keeps apple FOOD; these words are context only.
FOOD_CONTEXT_RE = re.compile(
    r"(?<![\w-])(?:eat|eats|ate|eaten|eating|bake|baked|baking|bakes|cook|cooked|cooking|cooks|"
    r"pie|pies|juice|juices|fruit|fruits|vegetable|vegetables|lunch|lunches|dinner|breakfast|brunch|"
    r"snack|snacks|dessert|desserts|meal|meals|market|markets|grocery|groceries|supermarket|recipe|"
    r"recipes|delicious|tasty|yummy|fresh|ripe|sweet|sour|kitchen|restaurant|menu|salad|sauce|jam|"
    r"slice|slices|peel|peeled|orchard|harvest|cake|tart|smoothie|bowl|plate|fried|roasted|grilled|"
    r"boiled|chopped|flavou?r|drink|drank|food|foods|farm|picked|basket)(?![\w-])",
    re.IGNORECASE,
)
FOOD_STRONG_CONTEXT_RE = re.compile(
    r"(?<![\w-])(?:eat|eats|ate|eaten|eating|bake|baked|baking|cook|cooked|cooking|pie|pies|juice|fruit|"
    r"fruits|lunch|dinner|breakfast|snack|dessert|meal|recipe|delicious|tasty|yummy|ripe|orchard|"
    r"peel|peeled|smoothie|jam|cider|tart)(?![\w-])", re.IGNORECASE)
FOOD_NEXT_RE = re.compile(
    r"\s+(?:pie|pies|juice|tart|tarts|cider|jam|sauce|cake|crumble|slices?|trees?|orchards?|seeds?|"
    r"peel|salad|smoothie|muffins?|strudel|turnover)\b", re.IGNORECASE)
EN_PREDICATE_AFTER_RE = re.compile(
    r"\s+(?:(?:has|have|had|also|now|still|then|recently|currently|already)\s+)*(?:uses|used|relies|"
    r"depends|acquired|acquires|developed|develops|built|builds|created|creates|designed|integrates|"
    r"runs|powers|supports|provides|offers|stores|sends|calls|ships|released|launched|announced|"
    r"works|worked|joined|partnered|belongs|(?:is|was|are|were)\s+(?:located|based|headquartered|part|"
    r"a|an|the|acquired|developed|built|founded|owned|used|now)|will|can|should|must)\b")
COMPANY_CONTEXT_RE = re.compile(
    r"(?<![\w-])(?:inc|corp|company|ceo|cfo|cto|founder|shares?|stocks?|nasdaq|nyse|shareholders?|"
    r"revenue|earnings|quarterly|headquarters|acquired|acquires|acquisition|announced|announces|"
    r"released|releases|launched|launches|unveiled|unveils|keynote|iphone|ipad|mac|macbook|ios|macos|"
    r"app\s+store|cupertino|tim\s+cook|steve\s+jobs|sued|lawsuit|antitrust|hired|employees?|startup|"
    r"subsidiary|partnered|partnership|investors?|valuation|market\s+cap|developer|developers|software|"
    r"hardware|device|devices|smartphone|platform|tech|technology|firm|brand|silicon|chip|chips)(?![\w-])",
    re.IGNORECASE,
)
# Verbs right after a capitalised name that suggest an organisation.
ORG_VERB_AFTER_RE = re.compile(
    r"\s+(?:(?:has|have|had|also|recently|officially|reportedly)\s+)*(?:acquired|acquires|announced|"
    r"announces|released|releases|launched|launches|unveiled|unveils|reported|reports|hired|hires|"
    r"raised|invested|invests|ships|shipped|sued|sues|bought|buys|partnered|partners|employs|"
    r"sells|sold|open-sourced|licensed|filed|posted)\b"
)
PERSON_VERB_AFTER_RE = re.compile(
    r"\s+(?:(?:has|have|had|also|recently|later)\s+)*(?:said|says|told|tells|wrote|writes|argued|"
    r"argues|explained|explains|believes|believed|thinks|thought|recalled|noted|added|joined|joins|"
    r"works\s+(?:at|for)|worked\s+(?:at|for)|is\s+a\s+(?:professor|researcher|scientist|engineer|"
    r"student|doctor|lecturer|postdoc)|was\s+born|studied|graduated|teaches|taught|received\s+(?:his|"
    r"her|their))\b"
)
PERSON_AFTER_ROLE_RE = re.compile(
    r"\s*[(（,，]\s*(?:[\w-]+\s+){0,3}?(?:tech\s+lead|lead|manager|engineer|ceo|cto|cfo|coo|founder|"
    r"co-founder|director|head|researcher|professor|scientist|pm|owner|architect|analyst|designer|"
    r"developer|intern|student|reviewer|author|maintainer|chair|editor)\b", re.IGNORECASE)
PERSON_LABEL_BEFORE_RE = re.compile(
    r"(?:owner|author|authors|contact|reviewer|reviewers|maintainer|maintainers|assignee|lead|"
    r"attendees|participants|cc|signed|approved\s+by|reviewed\s+by|written\s+by|prepared\s+by|"
    r"负责人|审核|审阅|作者|联系人|记录人|参会人|参会|主持人|评审)\s*[:：]\s*"
    r"(?:[^\n:：]{0,40}?[,，、和]\s*)?$", re.IGNORECASE)
# Acronym-shaped tokens that are units or boilerplate, never entities.
NON_ENTITY_ACRONYMS = frozenset(w.lower() for w in _words(
    "ID IDs OK AM PM TBD TODO FAQ ETA FYI ASAP AKA EOD EOW PTO WIP NA N/A GB MB TB KB PB GiB MiB TiB KiB "
    "MS GHz MHz KHz Hz KW KWh FPS QPS RPS TPS USD EUR RMB CNY GBP JPY UTC GMT CET CEST PST PDT EST EDT "
    "BST JST CST IST AD BC CE BCE RE FW FWD CC BCC PS NB PP II III IV VI VII VIII IX XI XII P50 P90 P95 "
    "P99 SLA No Nr"
))
QUARTER_RE = re.compile(r"(?:Q[1-4]|H[12]|FY\d{2,4}|[1-9]Q|CY\d{2,4}|P[0-9]|V[0-9])")
PERSON_VERB_AFTER_ZH = re.compile(r"^(?:说|表示|认为|指出|强调|介绍|透露|称|曾|也|在|加入|担任|毕业|出生|教授|博士|先生|女士)")
PLACE_BEFORE_RE = re.compile(
    r"(?:located|based|headquartered|situated|born|lives|lived|living|moved|relocated|travell?ed|"
    r"flew|city|town|province|country|state|capital|offices?|campus|headquarters)\s+(?:in|to|of|at|near|from)"
    r"\s+(?:the\s+)?$",
    re.IGNORECASE,
)
ORG_BEFORE_RE = re.compile(
    r"(?:works|worked|working|work|employed|professor|researcher|engineer|scientist|student|ceo|cto|"
    r"founder|director|head|intern|lecturer|postdoc)\s+(?:at|for|of|with)\s+(?:the\s+)?$"
    r"|(?:joined|joining|joins|subsidiary\s+of|division\s+of|acquired\s+by|shares\s+of)\s+(?:the\s+)?$",
    re.IGNORECASE,
)

# --------------------------------------------------------------------------------------------
# English tokens and sentences
# --------------------------------------------------------------------------------------------

# Words: letters/digits, joined by inner hyphens, dots ("Node.js", "3.11") or "&" ("AT&T").
_LATIN = "A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff\u0370-\u03ff\u0400-\u04ff"
WORD_RE = re.compile(f"[{_LATIN}]+(?:(?:[-&+.]|[’'](?=[{_LATIN}]{{2,}}))[{_LATIN}]+)*")
ACRONYM_RE = re.compile(r"[A-Z][A-Z0-9&]*[A-Z0-9](?:[-/][A-Z0-9]+)*")
VERSION_RE = re.compile(r"(?:[vV]\d+(?:\.\d+)*[a-z]?|\d+(?:\.\d+)+[a-z]?|\d{1,2}[a-z]?|\d+(?:\.\d+)*[xX])")
CAMEL_RE = re.compile(r"(?:[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z]+[A-Za-z0-9]*)")

QUOTE_RES = (
    (re.compile(r'"([^"\n]{1,60})"'), "CONCEPT"),
    (re.compile(r"“([^”\n]{1,60})”"), "CONCEPT"),
    (re.compile(r"「([^」\n]{1,40})」"), "CONCEPT"),
    (re.compile(r"『([^』\n]{1,40})』"), "CONCEPT"),
    (re.compile(r"《([^》\n]{1,40})》"), "OTHER"),
)
QUOTE_BAD_RE = re.compile(
    r"[.!?,;:。！？，；：、]\s*$|[。！？，；]|\s{2,}"
    r"|(?:^|\s)[A-Z](?:\s|$).*(?:^|\s)[A-Z](?:\s|$)"        # "X acquired Y" placeholders
    r"|[\u4e00-\u9fff](?:了|过|着)|(?:发布|推出|收购|位于|开发|属于|使用)[了的]?")

SENT_BOUNDARY_RE = re.compile(
    r"(?:^|(?<=\n))[ \t]*#{1,6}[ \t][^\n]*"  # a markdown heading line is a sentence of its own
    r"|[。！？；!?;]+[”’\"」』）)\]]*"      # CJK / exclamation / question / semicolon
    r"|\.{3}|…+"                           # ellipsis
    r"|\.[”’\"」』）)\]]*(?=\s|$|[" + CJK + r"])"  # full stop followed by space, end or CJK
    r"|\n[ \t]*\n\s*"                      # blank line
    r"|\n(?=[ \t]*(?:[#>*•\-–|]|\d+[.)]\s))"  # list item / heading / table row
)

# --------------------------------------------------------------------------------------------
# Relation predicates
# --------------------------------------------------------------------------------------------

_ADV = (r"(?:(?:has|have|had|also|recently|reportedly|officially|formally|quietly|publicly|finally|"
        r"successfully|later|then|just|now|already|previously|first|originally|eventually|subsequently|"
        r"jointly|initially|will|would|could|may|might|can|did|does|do|agreed\s+to|plans\s+to|"
        r"planned\s+to|decided\s+to|announced\s+(?:that\s+)?(?:it\s+)?(?:has\s+|had\s+|will\s+)?|"
        r"said\s+(?:that\s+)?(?:it\s+)?(?:has\s+|had\s+|will\s+)?)\s+)*")
_APPOS = r"(?:\s*,\s*[^,;]{1,60}?,)?"
_DET = r"(?:(?:the|a|an|its|their|his|her|our|this|that|these|those|some)\s+)?"
_FILL = (r"(?:(?!(?:from|in|at|of|with|by|for|to|on|into|and|or|but|than|as|is|was|are|were|which|"
         r"who|that|after|before|while|because)\s)[a-z][\w-]*\s+){0,3}?")
_DET_FILL = _DET + _FILL


def _en(pred: str, *, lead_comma: bool = False, tail: str = _DET_FILL) -> re.Pattern:
    """Between-text regex: [appositive] [adverbs] PREDICATE [determiner + up to 3 filler words]."""
    if lead_comma:
        head = r"\s*,\s*(?:(?:which|that|who)\s+)?"
    else:
        head = _APPOS + r"\s+"
    return re.compile(head + _ADV + r"(?:" + pred + r")\s+" + tail, re.IGNORECASE)


# Each entry: (relation type, between-regex (fullmatch on text between the two mentions),
#              after-regex or None (match right after the second mention), reversed, constraint)
# constraint: name of a check in extraction/assembly.py (None = no type constraint).
EN_RELATIONS: list[tuple[str, re.Pattern, re.Pattern | None, bool, str | None]] = [
    ("ACQUIRED", _en(r"acquired|acquires|acquire|acquiring|bought|buys|buy|purchased|purchases|"
                     r"took\s+over|takes\s+over|(?:completed|announced|finalized|closed)\s+(?:the|its)\s+"
                     r"acquisition\s+of"), None, False, "not_place_source"),
    ("ACQUIRED", _en(r"(?:(?:was|were|has\s+been|had\s+been|is|got|being|will\s+be)\s+)(?:\w+\s+)?"
                     r"(?:acquired|bought|purchased|taken\s+over)\s+by", tail=_DET), None, True, None),
    ("ACQUIRED", _en(r"(?:was\s+)?(?:acquired|bought|purchased)\s+by", lead_comma=True, tail=_DET),
     None, True, None),
    ("PART_OF", _en(r"(?:is|are|was|were|became|becomes|remains)\s+(?:now\s+|still\s+)?(?:a\s+|an\s+|the\s+)?"
                    r"(?:\w+\s+)?(?:part|subsidiary|division|unit|component|module|member|subproject|"
                    r"branch|sub-project|subsystem|arm|brand)\s+of|belongs?\s+to|belonged\s+to|"
                    r"(?:is|are|was|were)\s+(?:wholly\s+)?(?:owned|operated)\s+by", tail=_DET), None, False, None),
    ("PART_OF", _en(r"(?:now\s+)?(?:a|an|the)?\s*(?:\w+\s+)?(?:part|subsidiary|division|unit|component|"
                    r"module|member|subproject|branch|arm|brand)\s+of|(?:wholly\s+)?owned\s+by",
                    lead_comma=True, tail=_DET), None, False, None),
    ("PART_OF", _en(r"owns|owned|includes|include|included|contains|contain|comprises|consists\s+of|"
                    r"acquired\s+a\s+stake\s+in"), None, True, None),
    ("DEVELOPED", _en(r"developed|develops|develop|developing|built|builds|build|building|created|creates|"
                      r"create|designed|designs|design|invented|invents|authored|engineered|"
                      r"open-sourced|open\s+sourced|released|releases|launched|launches|unveiled|"
                      r"unveils|introduced|introduces|trained|trains|maintains|maintained|wrote|writes|"
                      r"shipped|ships|pioneered"), None, False, None),
    ("DEVELOPED", _en(r"(?:(?:was|were|is|are|has\s+been|had\s+been|being)\s+)(?:originally\s+|initially\s+|"
                      r"jointly\s+|first\s+|primarily\s+|largely\s+)?(?:developed|built|created|designed|"
                      r"invented|made|released|launched|engineered|maintained|written|trained|"
                      r"introduced|pioneered)\s+by", tail=_DET), None, True, None),
    ("DEVELOPED", _en(r"(?:(?:was|were|is|are)\s+)?(?:originally\s+|initially\s+|jointly\s+|first\s+)?"
                      r"(?:developed|built|created|designed|invented|made|released|launched|"
                      r"engineered|maintained|written|trained|introduced)\s+by",
                      lead_comma=True, tail=_DET), None, True, None),
    ("USES", _en(r"uses|use|used|using|relies\s+on|rely\s+on|relied\s+on|relying\s+on|depends\s+on|"
                 r"depend\s+on|depended\s+on|leverages|leverage|leveraged|utilizes|utilises|utilize|"
                 r"utilized|employs|employ|adopted|adopts|adopt|runs\s+on|run\s+on|integrates(?:\s+with)?|"
                 r"(?:is|are|was|were)\s+(?:built|based|running)\s+on(?:\s+top\s+of)?|"
                 r"(?:is|are|was|were)\s+powered\s+by|builds\s+on|calls|invokes|queries|"
                 r"stores\s+(?:\w+\s+){0,2}in|indexes\s+(?:\w+\s+){0,2}with|embeds|combines"),
     None, False, None),
    ("USES", _en(r"(?:(?:is|are|was|were|has\s+been|being)\s+)(?:\w+\s+)?(?:used|adopted|leveraged|employed|"
                 r"utilized|utilised|consumed|called|invoked)\s+by", tail=_DET), None, True, None),
    ("USES", _en(r"(?:built|based|running)\s+on(?:\s+top\s+of)?|powered\s+by|using|backed\s+by",
                 lead_comma=True, tail=_DET), None, False, None),
    ("LOCATED_IN", _en(r"(?:(?:is|are|was|were|remains)\s+)?(?:located|based|headquartered|situated|"
                       r"incorporated|registered|hosted|deployed)\s+in|(?:has|had)\s+(?:its\s+)?"
                       r"(?:headquarters|offices?|campus)\s+in|moved\s+to|relocated\s+to|sits\s+in|"
                       r"lives\s+in|lived\s+in|opened\s+(?:an?\s+)?(?:office|lab|campus)\s+in",
                       tail=_DET), None, False, "located"),
    ("LOCATED_IN", _en(r"(?:located|based|headquartered|situated|hosted)\s+in|(?:with\s+)?headquarters\s+in",
                       lead_comma=True, tail=_DET), None, False, "located"),
    ("LOCATED_IN", re.compile(r"\s+in\s+(?:the\s+)?|\s*,\s*"), None, False, "weak_in"),
    ("DEVELOPED", re.compile(r"(?:['’]s)?\s"), None, False, "org_product"),    # "Anthropic('s) Claude"
    ("WORKS_AT", _en(r"(?:works|work|worked|working)\s+(?:at|for|with|in)|joined|joins|join|joining|"
                     r"(?:is|was)\s+employed\s+(?:at|by)|teaches\s+at|taught\s+at|studies\s+at|studied\s+at|"
                     r"interned\s+at|leads|led|heads|headed|runs|founded|co-founded|cofounded|"
                     r"(?:is|was|became|becomes|serves\s+as|served\s+as)\s+(?:a\s+|an\s+|the\s+)?"
                     r"(?:[\w-]+\s+){0,3}?(?:at|of|with|for)",
                     tail=_DET), None, False, "person_source"),
    ("WORKS_AT", _en(r"(?:(?:a|an|the)\s+)?(?:[\w-]+\s+){0,2}?(?:ceo|cto|cfo|coo|founder|co-founder|"
                     r"cofounder|professor|researcher|scientist|engineer|director|president|chairman|"
                     r"head|lead|manager|employee|intern|student|fellow|lecturer|postdoc|member|"
                     r"vp|vice\s+president|partner)\s+(?:at|of|with|for)",
                     lead_comma=True, tail=_DET), None, False, "person_source"),
    ("WORKS_AT", _en(r"hired|hires|appointed|appoints|employs|employed|recruited|recruits|named",
                     tail=_DET), None, True, "person_target"),
    ("PARTNERED_WITH", _en(r"(?:partnered|partners|partner|partnering|teamed\s+up|teams\s+up|team\s+up|"
                           r"collaborated|collaborates|collaborate|collaborating|allied|cooperated|"
                           r"cooperates|cooperate|works\s+together|joined\s+forces)\s+with|"
                           r"(?:signed|formed|announced|entered(?:\s+into)?|struck|forged)\s+(?:a\s+|an\s+)?"
                           r"(?:\w+\s+)?(?:partnership|collaboration|alliance|agreement|deal)\s+with|"
                           r"(?:is|are)\s+partnering\s+with", tail=_DET), None, False, None),
    ("PARTNERED_WITH", re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE),
     re.compile(r"\s+(?:(?:have|has|had|recently|officially|will|also)\s+)*(?:partnered|teamed\s+up|"
                r"collaborated|collaborate|are\s+partnering|are\s+collaborating|formed\s+(?:a|an)\s+"
                r"(?:\w+\s+)?(?:partnership|alliance)|announced\s+(?:a|an)\s+(?:\w+\s+)?(?:partnership|"
                r"collaboration|alliance)|signed\s+(?:a|an)\s+(?:\w+\s+)?(?:partnership|agreement)|"
                r"joined\s+forces|work\s+together|are\s+partners)\b", re.IGNORECASE), False, None),
]

_ZH_ADV = r"(?:已经|已|正式|近日|最近|日前|今天|今年|去年|成功|宣布|也|还|将|曾经|曾|共同|首次|率先|全资|主要|自主|独立|联合|于|均|都|早在|目前)*"
_ZH_TITLE = (r"(?:博士|教授|先生|女士|老师|院士|研究员|工程师|同学|总裁|经理|主任|所长|院长|校长|团队|"
             r"公司|集团|总部|本人|等人|等)?")
_ZH_OBJ = r"(?:了|过|出)?(?:一家|一个|一款|一套|一种|该|名为|叫做|称为|新的|新一代的?)*"


def _zh(between: str) -> re.Pattern:
    return re.compile(_ZH_TITLE + _ZH_ADV + r"(?:" + between + r")" + _ZH_OBJ)


# Chinese: matched against the between text with whitespace removed.
ZH_RELATIONS: list[tuple[str, re.Pattern, re.Pattern | None, bool, str | None]] = [
    ("LOCATED_IN", _zh(r"总部位于|总部设在|总部在|位于|坐落于|坐落在|地处|设在|设于|落户于?|扎根于?|地址在"),
     None, False, "located"),
    ("ACQUIRED", _zh(r"收购|并购|买下|购入|收编|吞并"), None, False, "not_place_source"),
    ("ACQUIRED", re.compile(_ZH_TITLE + _ZH_ADV + r"(?:被|由)"),
     re.compile(r"^" + _ZH_ADV + r"(?:收购|并购|买下|吞并)"), True, None),
    ("DEVELOPED", _zh(r"开发|研发|研制|发布|推出|打造|设计|创建|构建|发明|开源|训练|提出|搭建|编写"),
     None, False, None),
    ("DEVELOPED", re.compile(_ZH_TITLE + r"(?:是|系)?" + _ZH_ADV + r"由"),
     re.compile(r"^" + _ZH_ADV + r"(?:开发|研发|研制|设计|创建|构建|打造|推出|发布|提出|训练|编写)"), True, None),
    ("DEVELOPED", re.compile(r"(?:是|系)" + _ZH_ADV),
     re.compile(r"^" + _ZH_ADV + r"(?:开发|研发|研制|设计|创建|构建|打造|推出|发布|提出)的"), True, None),
    ("PART_OF", _zh(r"属于|隶属于|隶属|归属于|从属于|并入|加入了?"), None, False, "not_person_source"),
    ("PART_OF", re.compile(_ZH_TITLE + r"(?:是|为|成为)"),
     re.compile(r"^(?:的|旗下的?)(?:一部分|子公司|组成部分|下属|分支|成员|一个模块|模块|子项目|部门)"), False, None),
    ("PART_OF", re.compile(r"(?:旗下的?|下属的?|的子公司)"), None, True, None),
    ("LOCATED_IN", _zh(r"部署在|部署于|托管在|托管于|设立在|驻扎在"), None, False, "weak_in"),
    ("USES", _zh(r"使用|采用|利用|依赖于|依赖|基于|借助|调用|运用|应用|集成|接入|运行在|运行于|构建在|建立在"),
     None, False, None),
    ("PARTNERED_WITH", re.compile(_ZH_TITLE + _ZH_ADV + r"(?:与|和|同|跟|联合)"),
     re.compile(r"^" + _ZH_ADV + r"(?:达成|签署|签订|建立|开展|展开|宣布|进行|深化)?(?:了)?(?:战略|深度|全面|长期|"
                r"紧密)?(?:合作|携手|联手|结盟|合作伙伴)"), False, None),
    ("PARTNERED_WITH", _zh(r"携手|联手|牵手|联合|合作"), None, False, None),
    ("WORKS_AT", re.compile(_ZH_TITLE + _ZH_ADV + r"(?:在|于)"),
     re.compile(r"^" + _ZH_ADV + r"(?:工作|任职|就职|任教|供职|担任|从事|读书|学习|做研究|研究|实习|攻读|任)"),
     False, "person_source"),
    ("WORKS_AT", _zh(r"加入|加盟|就职于|任职于|供职于|任教于|受雇于|效力于|入职"), None, False, "person_source"),
    ("WORKS_AT", re.compile(_ZH_TITLE + r"(?:是|为|担任)"),
     re.compile(r"^的?(?:教授|研究员|工程师|员工|首席[\u4e00-\u9fff]{1,4}|CEO|CTO|总裁|创始人|联合创始人|"
                r"科学家|博士后?|讲师|院长|所长|主任|董事长|经理|成员|学生)"), False, "person_source"),
]

# --------------------------------------------------------------------------------------------
# Chinese lexicon
# --------------------------------------------------------------------------------------------

ZH_ORG_GAZ = (
    "阿里巴巴", "阿里云", "蚂蚁集团", "腾讯", "百度", "华为", "字节跳动", "小米", "京东", "美团", "网易", "拼多多",
    "滴滴", "中兴", "联想", "比亚迪", "大疆", "商汤", "旷视", "科大讯飞", "智谱", "深度求索", "月之暗面", "快手",
    "新浪", "搜狐", "携程", "蔚来", "理想汽车", "小鹏", "宁德时代", "中芯国际", "台积电", "海尔", "格力",
    "特斯拉", "微软", "谷歌", "苹果", "亚马逊", "英伟达", "英特尔", "三星", "索尼", "脸书", "甲骨文", "高通",
    "国际商业机器", "开放人工智能", "清华大学", "北京大学", "复旦大学", "浙江大学", "上海交通大学", "南京大学",
    "中国科学技术大学", "武汉大学", "中山大学", "哈尔滨工业大学", "同济大学", "中国人民大学", "中国科学院",
    "中科院", "中国工程院", "北京智源人工智能研究院", "智源研究院", "鹏城实验室", "之江实验室", "上海人工智能实验室",
    "国家电网", "中国移动", "中国联通", "中国电信", "工商银行", "建设银行", "中国银行", "招商银行", "搜狗",
    "麻省理工学院", "斯坦福大学", "哈佛大学", "牛津大学", "剑桥大学", "联合国", "世界卫生组织",
)
ZH_AMBIGUOUS_ORG = frozenset(["苹果", "小米"])
ZH_PLACE_GAZ = (
    "中国", "美国", "英国", "法国", "德国", "日本", "韩国", "印度", "俄罗斯", "加拿大", "澳大利亚", "新加坡",
    "意大利", "西班牙", "荷兰", "瑞士", "瑞典", "巴西", "墨西哥", "以色列", "欧洲", "亚洲", "非洲", "北美",
    "北京", "上海", "深圳", "杭州", "广州", "成都", "武汉", "南京", "西安", "天津", "重庆", "苏州", "厦门",
    "青岛", "大连", "哈尔滨", "长沙", "郑州", "合肥", "昆明", "香港", "台湾", "澳门", "台北", "广东", "浙江",
    "江苏", "四川", "湖北", "山东", "福建", "云南", "海南", "雄安", "中关村", "浦东", "张江", "柏林", "慕尼黑",
    "巴黎", "伦敦", "东京", "大阪", "首尔", "纽约", "旧金山", "硅谷", "西雅图", "波士顿", "洛杉矶", "芝加哥",
    "华盛顿", "多伦多", "温哥华", "悉尼", "迪拜", "苏黎世", "阿姆斯特丹", "莫斯科", "曼谷", "班加罗尔",
)
ZH_PRODUCT_GAZ = (
    "微信", "支付宝", "淘宝", "天猫", "抖音", "今日头条", "钉钉", "飞书", "文心一言", "通义千问", "豆包", "元宝",
    "鸿蒙", "盘古大模型", "混元", "星火", "智谱清言", "讯飞星火", "麒麟", "昇腾", "鲲鹏", "Kimi", "悟空",
)
ZH_CONCEPT_GAZ = (
    "知识图谱", "人工智能", "机器学习", "深度学习", "强化学习", "迁移学习", "联邦学习", "大语言模型", "大模型",
    "语言模型", "向量数据库", "向量检索", "向量搜索", "语义搜索", "语义检索", "混合检索", "全文检索",
    "检索增强生成", "自然语言处理", "计算机视觉", "神经网络", "图神经网络", "卷积神经网络", "实体识别",
    "命名实体识别", "实体消歧", "实体链接", "关系抽取", "信息抽取", "知识库", "知识抽取", "向量嵌入", "嵌入向量",
    "注意力机制", "云计算", "边缘计算", "区块链", "量子计算", "多智能体", "智能体", "推荐系统", "搜索引擎",
    "数据挖掘", "数据仓库", "数据湖", "微服务", "倒排索引", "余弦相似度", "社区发现", "图数据库", "微调",
    "提示工程", "思维链", "生成式人工智能", "自动驾驶", "语音识别", "机器翻译", "问答系统",
)
ZH_FOOD = (
    "苹果", "香蕉", "橙子", "橘子", "葡萄", "西瓜", "草莓", "芒果", "桃子", "荔枝", "米饭", "面条", "饺子",
    "包子", "馒头", "豆腐", "火锅", "烤鸭", "月饼", "粽子", "汤圆", "牛奶", "咖啡", "绿茶", "红茶", "面包",
    "蛋糕", "鸡蛋", "牛肉", "猪肉", "鸡肉", "鱼肉", "土豆", "番茄", "西红柿", "白菜", "小米粥",
)
ZH_FOOD_CONTEXT_RE = re.compile(
    r"吃|喝|派|水果|果汁|果酱|午餐|午饭|早餐|早饭|晚餐|晚饭|夜宵|菜市场|超市|市场|水果店|新鲜|好吃|美味|可口|甜|酸|"
    r"烤|煮|炒|蒸|做饭|下厨|食谱|菜谱|厨房|餐厅|一斤|一箱|一筐|一个|削皮|榨汁|熬|粥|甜点|零食|营养|果园|采摘"
)
ZH_COMPANY_CONTEXT_RE = re.compile(
    r"公司|集团|发布|推出|收购|并购|股价|市值|手机|iPhone|芯片|系统|产品|发布会|CEO|总裁|创始人|融资|上市|"
    r"营收|财报|科技|品牌|旗下|合作|员工|总部|开发|研发"
)

ZH_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高郑梁谢宋唐韩冯邓曹彭曾肖田董潘袁蔡蒋余杜叶程魏苏吕丁任沈姚卢"
    "姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温"
    "康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍"
    "涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑"
    "景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝"
    "欧"
)
ZH_SURNAME_SET = frozenset(ZH_SURNAMES)
# Most common surnames: used to guess that an unknown 2-3 character word is a name.
ZH_COMMON_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高郑梁谢宋唐韩冯邓曹彭曾肖田董潘袁蔡蒋余杜叶程魏苏吕丁任沈姚卢"
    "姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔汤")
ZH_COMPOUND_SURNAMES = ("欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "令狐", "慕容", "尉迟", "司徒")
ZH_PERSON_TITLES = (
    "博士后", "博士", "教授", "副教授", "先生", "女士", "小姐", "老师", "院士", "研究员", "工程师", "总裁", "经理",
    "主任", "所长", "院长", "校长", "董事长", "总经理", "同学", "医生", "律师", "记者", "部长", "主席", "总监",
    "首席执行官", "创始人",
)
# Person name (surname + 1-2 chars) marked by a title or a speech/verb context right after it.
_ZH_PERSON_NEXT = "|".join(sorted(ZH_PERSON_TITLES, key=len, reverse=True)) + \
    r"|说|表示|认为|指出|强调|介绍|透露|称|告诉|加入|担任|毕业于|出生于|在[\u4e00-\u9fff]{2,12}(?:工作|任职|任教|就职)"
ZH_PERSON_RE = re.compile(
    r"(?:(" + "|".join(ZH_COMPOUND_SURNAMES) + r")|([" + ZH_SURNAMES + r"]))"
    r"([" + CJK + r"]{1,2}?)(?=" + _ZH_PERSON_NEXT + r")"
)

ZH_ORG_SUFFIXES = (
    "股份有限公司", "有限责任公司", "有限公司", "科技公司", "公司", "集团", "大学", "学院", "研究院", "研究所",
    "研究中心", "实验室", "科学院", "工程院", "银行", "医院", "协会", "学会", "基金会", "委员会", "中心", "事务所",
    "出版社", "工作室", "科技", "大厂", "联盟", "政府", "部", "局", "署", "厅",
)
ZH_ORG_SUFFIX_SET = frozenset(ZH_ORG_SUFFIXES)
ZH_PRODUCT_HEADS = ("引擎", "平台", "系统", "数据库", "网关", "框架", "项目", "软件", "应用", "芯片", "工具",
                    "助手", "服务器", "操作系统", "浏览器", "大模型", "模型", "客户端", "插件", "套件", "接口")
ZH_CONCEPT_HEADS = ("技术", "算法", "方法", "协议", "架构", "理论", "机制", "范式", "模型架构", "学习")
ZH_EVENT_HEADS = ("大会", "会议", "峰会", "论坛", "博览会", "展会", "比赛", "大赛", "战争", "奥运会", "世界杯",
                  "发布会", "节", "研讨会")
# Generic nouns that are never entities on their own.
ZH_STOP_NOUNS = frozenset("""
我们 你们 他们 她们 它们 大家 人们 自己 这个 那个 这些 那些 什么 时候 问题 方面 情况 工作 时间 东西 部分 内容
结果 过程 方式 目前 今天 明天 现在 昨天 今年 去年 明年 以后 以前 之后 之前 其中 其他 一些 很多 许多 方法 技术
系统 平台 数据 信息 用户 公司 大学 项目 产品 服务 功能 能力 作用 影响 发展 需要 可能 研究 分析 问题 领域 行业
市场 企业 团队 成员 人员 员工 客户 社会 世界 国家 地区 城市 中心 关系 作者 文章 报告 文档 文件 版本 模型 框架
引擎 算法 机制 方案 工具 应用 软件 网络 程序 代码 接口 场景 任务 目标 效果 性能 质量 规模 水平 速度 成本 价格
上午 下午 晚上 早上 中午 年代 世纪 时期 阶段 部门 机构 组织 单位 集团 实验室 研究院 研究所 学院 中心 协会 博士
教授 先生 女士 老师 学生 同学 朋友 专家 学者 科学家 工程师 研究员 总裁 经理 主任 主席 午餐 晚餐 早餐 水果 东西
总部 分部 方向 基础 核心 关键 重点 特点 优势 问题 挑战 机会 意义 价值 原因 条件 环境 资源 标准 规范 政策 计划 战略
""".split())
ZH_NOUN_FLAGS = frozenset(["n", "nr", "nrt", "nrfg", "ns", "nt", "nz", "nw", "vn", "j", "ng", "eng_cjk"])
ZH_PREDICATE_WORDS = frozenset("""
位于 坐落于 地处 设在 收购 并购 买下 开发 研发 研制 发布 推出 打造 设计 创建 构建 属于 隶属于 隶属 使用 采用 利用 依赖
依赖于 基于 借助 调用 合作 携手 联手 加入 任职 就职 任教 工作 开源 提出 集成 接入 应用 运用
""".split())
