"""English word lists, gazetteers (``normalize_name`` keys), food and context cues, token and sentence regexes."""
from __future__ import annotations

import re

from knowledge.graph.extraction_patterns.cjk import CJK
from knowledge.names import normalize_name


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
    "Alongside Beside Besides Amid Amidst Amongst Unlike Including Regarding Concerning "
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
    "Western Eastern Northern Southern"
)) | frozenset(w.lower() for w in MONTHS_DAYS)

# Languages and nationality adjectives: never an entity on their own ("speaks Polish", "American actor"),
# but the first word of a longer name ("American Civil War", "British Columbia", "Pan American Games").
NATIONALITIES = frozenset(w.lower() for w in _words(
    "Chinese English American British European Asian African French German Japanese Korean Indian "
    "Russian Canadian Australian Italian Spanish Polish Portuguese Dutch Swedish Norwegian Danish "
    "Finnish Icelandic Greek Turkish Arabic Arab Hebrew Persian Iranian Iraqi Hindi Urdu Bengali Tamil "
    "Thai Vietnamese Indonesian Malay Filipino Mexican Brazilian Argentine Argentinian Chilean Peruvian "
    "Colombian Cuban Irish Scottish Welsh Swiss Austrian Belgian Czech Slovak Hungarian Romanian "
    "Bulgarian Serbian Croatian Slovenian Ukrainian Belarusian Lithuanian Latvian Estonian Egyptian "
    "Israeli Pakistani Afghan Nepali Mongolian Tibetan Cantonese Mandarin Taiwanese Singaporean "
    "Nigerian Kenyan Ethiopian Moroccan Algerian Saudi Syrian Lebanese Jordanian Latin Nordic "
    "Scandinavian Slavic Germanic Celtic Anglo Hispanic Latino Caribbean Pacific Atlantic Arctic "
    "Americans Europeans Asians Africans"
))
# The first word of "Week 1", "Day 3", "Phase 2": with only a number after it, not a name.
COUNTED_UNITS = frozenset(w.lower() for w in _words(
    "Week Weeks Day Days Month Months Year Years Quarter Phase Step Stage Sprint Round Part Section "
    "Chapter Page Figure Table Item Slide Line Floor Room Level Grade Milestone Hour Minute Option Tier "
    "Wave Batch Iteration Version Release Appendix Lesson Unit Task Track Session Meeting Issue Ticket"
))
# Words that name a recurring document or meeting about a project, not the project:
# "Project Atlas Weekly", "Helios Sync Notes".
DOCUMENT_TAIL_WORDS = frozenset(w.lower() for w in _words(
    "Weekly Monthly Daily Quarterly Notes Minutes Sync Standup Stand-up Update Updates Retro "
    "Retrospective Agenda Recap Kickoff Kick-off Status Checklist Memo Writeup Write-up"
))
# Name words after a period that do not end the name: "St. Louis", "Mt. Fuji", "Martin Luther King Jr."
NAME_ABBREVIATIONS = frozenset(["st", "mt", "ft", "jr", "sr"])
# Season words that start a name only before these ("Summer Olympics", "Winter Palace").
SEASON_NAME_HEADS = frozenset(["olympics", "olympic", "games", "paralympics", "universiade", "palace",
                               "solstice", "school"])
# Last words that make a nationality-led sequence one name.
NATIONAL_NAME_HEADS = frozenset(w.lower() for w in _words(
    "War Wars Empire Revolution Navy Army Columbia League Party Conference Union Republic Senate Parliament "
    "Congress Airlines Airways Railway Railways Broadcasting Open Championship Cup Government Peninsula "
    "Ocean Sea Alps Plateau Basin Guiana Samoa Virgin Islands Confederation Federation Monarchy Dynasty"
))
# Compass and size words: parts of names ("North Carolina", "Greater London"), never a name alone.
NEVER_ALONE = frozenset(w.lower() for w in _words(
    "North South East West Northeast Northwest Southeast Southwest Central Upper Lower Greater Middle Inner "
    "Outer Empire Kingdom Republic Church People Women Men World Earth Census State"
))

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
    "Researcher Scientist Prime Dr. Prof. Captain Lieutenant Sergeant Representative Congressman Congresswoman "
    "Commissioner Ambassador Admiral Historian"
))
# Offices and ranks: with TITLES, a name made only of them ("Officer", "Vice President", "Chief Editor") names a
# role, not an entity.
OFFICE_WORDS = TITLES | frozenset(w.lower() for w in _words(
    "Officer Officers Leader Leaders Secretary Commander Champion Grandmaster Member Members Ministers Coroner "
    "Coroners Deputy Elect Premier Speaker Treasurer Chief Vice Assistant Acting Editor General Attorney"
))
# Fields an institution is "of": the common nouns after "and" in "College of Arts and Sciences"
FIELD_WORDS = frozenset(w.lower() for w in _words(
    "Arts Science Sciences Technology Industry Culture Sport Sports Affairs Health Welfare Services Commerce Trade "
    "Education Research Environment Energy Transport Justice Finance Tourism Agriculture Fisheries Oceans Defence "
    "Defense Security Labour Labor Medicine Law Letters Mathematics Engineering Design History Music Drama Peace "
    "Resources Forestry Communications Media Planning Housing Heritage Innovation Parks Recreation Wildlife Policy "
    "Economy"
))
# Labels of an infobox flattened into the text ("... Fate Acquired by Gart Sports Founded 1919 Defunct 2005
# Headquarters Houston ..."): no part of a name, never a name alone.
INFOBOX_LABELS = frozenset(w.lower() for w in _words(
    "Founded Defunct Headquarters Website Starring Presented Released Fate Parent Products Genre Genres Subsidiaries"
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
    "University Institute Institution Bank Department Ministry School College Academy Museum Society General "
    "Association Council Federation League Republic Kingdom Board Office Bureau Center Centre "
    "Laboratory Lab Labs Foundation Church Cathedral Hall Gulf Sea Isle Isles Cape Lake Mount Port "
    "State States Province City Conference Summit Congress Commission Committee Agency Authority "
    "Court House Order Union Alliance Organization Organisation Fund Corps Chamber Journal Festival "
    "Battle War Treaty Bay Straits Sisters Brothers Sons Johnson Procter Ernst Marks Barnes Simon "
    "Standard Tiffany Arm Hewlett "
    "Register Registry Medal Reign Age Era Siege Sack Earl Duke Duchess Count Countess Prince Princess "
    "King Queen Emperor Empress Bishop Archbishop Diocese Archdiocese Parish Borough Municipality "
    "Empire Duchy Principality Act Declaration Gospel Epistle Book Cathedral Basilica Chapel Abbey "
    "Monastery Temple Palace Castle Tower Bridge Strait River Valley Island Islands Coast Government "
    "Parliament Senate Assembly Army Navy Legion Regiment Fleet Confederation Commonwealth Gallery "
    "Library Archive Archives Hospital Prize Cross Directorate Administration Service Sultan Emir Shah "
    "Tsar Czar Pope Patriarch Caliph Raja Maharaja Nawab Marquess Viscount Baron Knights Daughters Friends "
    "Statue Tomb Line Film Orchestra Opera Theatre Theater Conservatory Cemetery Garden Gardens Zoo Party"
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
    "MS GHz MHz KHz Hz KW KWh MW FM TV ERP CDP ZIP FPS QPS RPS TPS USD EUR RMB CNY GBP JPY UTC GMT CET CEST "
    "PST PDT EST EDT "
    "BST JST CST IST AD BC CE BCE RE FW FWD CC BCC PS NB PP II III IV VI VII VIII IX XI XII P50 P90 P95 "
    "P99 SLA No Nr EP CD DVD VHS ABV"
))
# Names joined by "and" that are one place or one script, not two: "Trinidad and Tobago", "Traditional Chinese".
COMPOUND_NAME_RE = re.compile(
    r"\b(?:(?:(?:Federal |Democratic |Co-operative |Socialist )?Republic|(?:United )?Kingdom|Federation) of )?"
    r"(?:Trinidad and Tobago|Bosnia and Herzegovina|Antigua and Barbuda|Saint Kitts and Nevis|"
    r"Saint Vincent and the Grenadines|S(?:ão|ao) Tom(?:é|e) and Pr(?:í|i)ncipe|Saint Pierre and Miquelon|"
    r"Akrotiri and Dhekelia|Turks and Caicos Islands|Wallis and Futuna|Heard Island and McDonald Islands|"
    r"Serbia and Montenegro|Rhodesia and Nyasaland|"
    r"Traditional Chinese|Simplified Chinese)\b")
# A country's short name that a text also writes in full is the same country: "U.S." and "the United States".
COUNTRY_SHORT_NAMES = {"us": "unitedstates", "usa": "unitedstates", "unitedstatesofamerica": "unitedstates",
                       "uk": "unitedkingdom", "ussr": "sovietunion", "uae": "unitedarabemirates",
                       "prc": "peoplesrepublicofchina", "drc": "democraticrepublicofthecongo",
                       "eu": "europeanunion", "un": "unitednations"}
QUARTER_RE = re.compile(r"(?:Q[1-4]|H[12]|FY\d{2,4}|[1-9]Q|CY\d{2,4}|P[0-9]|V[0-9])")
PERSON_VERB_AFTER_ZH = re.compile(r"^(?:说|表示|认为|指出|强调|介绍|透露|称|曾|也|在|加入|担任|毕业|出生|教授|博士|先生|女士)")  # noqa: E501
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
    (re.compile(r"``\s?([^`'\n]{1,60}?)\s?''"), "CONCEPT"),                  # ``Title'' (LaTeX-style quotes)
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
# Generic names: real entities inside one text, but too unspecific to link two corpora
# --------------------------------------------------------------------------------------------

# File formats and generic data / AI terms; with NATIONALITIES, CONCEPT_PHRASES, CONCEPT_GAZ and the
# well-known places of PLACE_GAZ they make GENERIC_KEYS (knowledge/canonical/specificity.py).
GENERIC_TERMS = (
    "PDF|CSV|TSV|JSON|JSONL|XML|YAML|HTML|Markdown|DOCX|XLSX|PPTX|TXT|PNG|JPEG|JPG|GIF|SVG|MP3|MP4|ZIP|"
    "PII|PHI|LLM|LLMs|AI|ML|API|APIs|SDK|SQL|GPU|GPUs|CPU|CPUs|SSD|HDD|RAM|VM|OCR|NLP|RAG|UI|UX|SaaS|IT|HR|QA|FAQ|"
    "English|Internet|Web|Cloud|Email|E-mail"
)
